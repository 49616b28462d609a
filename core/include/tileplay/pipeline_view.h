// The pipeline view behind `tilec inspect --pipeline` and the playground's Pipeline dock: for
// each T.Pipelined loop of a kernel compiled for one target, what each warp role (the whole
// block for cp.async multi-buffering, the TMA producer and the wgmma consumers of a
// warp-specialised kernel) does before the loop, in one iteration and after it, and where it
// waits (cp.async wait_group, mbarriers, wgmma wait_group, __syncthreads, named barriers), each
// event with its DSL line. Read from the compiler's own lowered IR after the pipelining and
// producer-consumer passes; the schedule is never derived a second time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tileplay/compiler.h"

namespace tp {

enum class PipeEventKind {
    TmaLoad,      // producer: cp.async.bulk.tensor into a ring slot
    CpAsync,      // cp.async tile copy issued (per thread, 16-byte chunks)
    Commit,       // cp.async.commit_group
    WaitGroup,    // cp.async.wait_group N
    Acquire,      // producer waits for a ring slot to be released (empty mbarrier), arms the full one
    MbarWait,     // wait for an mbarrier phase (a ring slot filled, or a user T.mbarrier_wait_parity)
    MbarArrive,   // user T.mbarrier_arrive / expect_tx
    Release,      // consumer gives a ring slot back (arrives on its empty mbarrier)
    MmaIssue,     // wgmma group issued (asynchronous)
    MmaWait,      // wgmma.wait_group N
    Mma,          // synchronous Tensor-Core gemm (mma.sync with ldmatrix)
    Barrier,      // __syncthreads
    NamedSync,    // bar.sync on a named barrier (consumer warpgroups taking turns)
    NamedArrive,  // bar.arrive on a named barrier
    Store,        // a tile store to global memory (TMA store or per-thread)
    Compute,      // other work: element-wise loops, reductions, conversions
    Scalar,       // scalar bookkeeping: ring slot and phase counters, indices
};
const char* pipe_event_kind_name(PipeEventKind k);  // "tma_load", "cp_async", ...

struct PipeEvent {
    PipeEventKind kind = PipeEventKind::Compute;
    std::string label;   // "TMA load A_shared", "wait full mbarrier (K_shared)", "wgmma wait_group 1"
    std::string code;    // the lowered statement, one line
    std::string buffer;  // the shared tile it loads, waits for, releases or reads; "" none
    std::string slot;    // the ring slot or stage it uses, as the IR computes it; "" none
    std::string guard;   // the conditions it runs under ("tx == 256", "k + 1 < 128"); "" always
    Span span;           // the DSL statement it comes from
    bool waits = false;  // the role can block here
    bool async = false;  // it starts work that completes later (TMA, cp.async, wgmma)
};

struct PipeRole {
    std::string name;  // "block", "producer", "consumer"
    std::string who;   // "warpgroup 2 (threads 256-383, 24 registers)", ...
    int64_t first_thread = 0, threads = 0;
    int regs = 0;                       // setmaxnreg; 0 when not set
    std::string loop;                   // the lowered loop of the steady state: "for k in T.serial(1, 32)"
    std::vector<PipeEvent> prologue;    // the loop's statements this role runs before that loop
    std::vector<PipeEvent> steady;      // one iteration of it
    std::vector<PipeEvent> epilogue;    // after it (peeled last iterations, drains)
    std::vector<std::string> waits_on;  // every distinct place it waits, in order
};

// A shared tile the loop multi-buffers: the stages (cp.async) or ring slots (TMA) the lowered
// code allocated, which may exceed num_stages (the warp-specialised rings deepen to fill the
// shared memory left).
struct PipeBuffer {
    std::string name;
    int64_t depth = 1;  // ring slots or stages
};

struct PipelineLoopView {
    Span span;        // the `for ... in T.Pipelined(...)` line
    std::string var;  // its loop variable
    std::string extent;
    int num_stages = 0;
    int launch = 0;      // which T.Kernel of the function
    std::string scheme;  // how the compiler pipelined it, in words
    std::vector<PipeBuffer> buffers;
    // The compiler's remarks at the loop's lines: why a fast path (TMA, warp specialisation,
    // wgmma, the rotation) was not taken here.
    std::vector<std::string> notes;
    std::vector<PipeRole> roles;
};

struct PipelineReport {
    bool ok = false;
    std::string error;  // compile failure, user-facing
    std::vector<Diagnostic> diagnostics;
    SourceFilePtr file;
    std::string target, kernel;
    std::vector<PipelineLoopView> loops;  // in program order; empty when the kernel has none
};

// Compiles `req` to the lowered IR and reads the pipeline of each T.Pipelined loop from it.
PipelineReport inspect_pipeline(const CompileRequest& req);

}  // namespace tp
