// The interpreter's executable form: Tile IR compiled once into a tree of closures (CExpr,
// CStmt) over a per-block Frame of typed variable slots and buffer views, so the hot loops
// never look anything up by name or allocate per element.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "tileplay/diagnostics.h"
#include "tileplay/interp.h"

namespace tp::interp {

constexpr int kMaxRank = 8;

// A run-time error in the kernel (out-of-bounds, failed assert): carries the diagnostic.
struct RunError {
    Diagnostic diag;
};

// A buffer as seen from one frame: values are kept as doubles already rounded to the
// buffer's dtype, so reads need no conversion.
struct BufView {
    double* data = nullptr;
    int64_t shape[kMaxRank] = {};
    int rank = 0;
    int64_t size = 0;
    uint8_t* written = nullptr;  // global buffers when the run tracks written elements
    bool global = false;
};

struct Program;
struct Fibers;
struct RaceState;

// The state of one block's execution. One frame per worker thread, reused across blocks.
// Thrown by poll_watchdog when the run is cancelled; run_on_cpu stops every block on it.
struct Cancelled {};

// T.rng_init / T.rng_rand: a thread's Philox4x32-10 generator (the algorithm and state layout of
// codegen/cuda/runtime/tp_rand.cuh, so both draw the same numbers).
struct RngState {
    uint32_t key[2] = {0, 0};
    uint32_t ctr[4] = {0, 0, 0, 0};
    uint32_t out[4] = {0, 0, 0, 0};
    int pos = -1;  // -1 until T.rng_init
};

struct Frame {
    const Program* prog = nullptr;
    std::vector<int64_t> ivars;
    std::vector<double> fvars;
    std::vector<BufView> bufs;
    std::vector<std::vector<double>> local_storage;  // per buffer slot, for block-local buffers
    int64_t block[3] = {0, 0, 0};
    bool breaking = false;
    bool discover = false;  // first pass: KernelLaunch records the grid and stops
    std::vector<int64_t> grid;
    std::string prints;  // T.print output of the current block
    // Set by run_on_cpu's watchdog when the run is over its time; loops poll it each
    // iteration (one relaxed load) so `T.serial(1 << 40)` or an endless while stops.
    const std::atomic<bool>* expired = nullptr;
    double watchdog_s = 0;
    const std::atomic<bool>* cancel = nullptr;  // InterpOptions::cancel, polled with the watchdog
    // Thread mode (threads.cpp): the block's threads as fibers; this frame is thread
    // `thread_rank`'s, `leader` thread 0's (shared and fragment buffers live there).
    Fibers* fibers = nullptr;
    int64_t thread_rank = 0;
    Frame* leader = nullptr;
    std::shared_ptr<Fibers> fiber_pool;  // a worker's fibers, kept from block to block
    // --check-races (race_check.h): the block's checker state, shared by its fibers (null when
    // the run does not check), and the thread the current access is attributed to.
    RaceState* races = nullptr;
    int32_t owner = -1;
    int64_t par_index = -1;  // the flattened iteration of the T.Parallel nest being run, -1 outside one
    RngState rng;            // this thread's generator (the block's, when one program runs a one-thread block)
    std::vector<int> alias_owner;  // per dtype-view group: the slot that wrote its bytes last (aliases.h)
    void poll_watchdog(Span span) const {
        if (expired && expired->load(std::memory_order_relaxed)) throw_timeout(span);
        if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled{};
    }
    [[noreturn]] void throw_timeout(Span span) const;
};

struct CExpr {
    ir::DataType dtype;
    Span span;
    virtual ~CExpr() = default;
    virtual int64_t i(Frame& fr) const = 0;
    virtual double f(Frame& fr) const = 0;
};
using CExprP = std::unique_ptr<CExpr>;

struct CStmt {
    Span span;
    virtual ~CStmt() = default;
    virtual void exec(Frame& fr) const = 0;
};
using CStmtP = std::unique_ptr<CStmt>;

// Variable slots: ints in Frame::ivars, floats in Frame::fvars.
struct VarSlot {
    int index = -1;
    bool is_float = false;
};

struct BufferInfo {
    ir::Buffer buffer;
    int slot = -1;
    bool global = false;
};

// The threads [lo, hi) of a role the user split by hand (hi > lo), or no interval (lo < 0).
struct ThreadRange {
    int64_t lo = 0, hi = 0;
};

// The compiled kernel plus the tables the compiler filled.
struct Program {
    std::string file;  // for diagnostics
    CStmtP root;
    std::unordered_map<const ir::VarNode*, VarSlot> vars;
    std::unordered_map<const ir::BufferNode*, int> buffer_slots;
    std::vector<BufferInfo> buffers;  // by slot
    int n_ivars = 0, n_fvars = 0;
    std::vector<ir::Var> block_vars;   // from the KernelLaunch (filled while compiling)
    std::vector<ir::Var> thread_vars;
    bool has_print = false;
    // Thread mode: the kernel is written at thread level (see thread_level); while compiling,
    // how deep inside a block-wide statement (whose inside thread 0 runs alone) we are.
    bool thread_mode = false;
    int block_wide_depth = 0;
    // While compiling: threads of the block, and of the enclosing `T.ws` role (0 outside one);
    // an mbarrier arrive counts one arrival per thread that runs it.
    int64_t block_threads = 1, role_threads = 0;
    // Thread mode: the threads the code being compiled runs on (a role split by hand with
    // `if tx < 128:`), whose first thread runs its tile ops; the whole block when hi <= lo.
    ThreadRange range;
    const ir::VarNode* tid = nullptr;  // a one-dimensional block's thread index
    // --check-races: compile the checking variants of shared loads, stores, T.Parallel loops
    // and barriers (a run without the flag runs the plain closures and pays nothing).
    bool check_races = false;
    // Dtype views (aliases.h): the group of each buffer that shares bytes, and each group's slots.
    std::unordered_map<const ir::BufferNode*, size_t> alias_group;
    std::vector<std::vector<int>> alias_slots;

    VarSlot slot_of(const ir::Var& v);
    int buffer_slot(const ir::Buffer& b);
    Frame make_frame() const;
};

// Compilers (compile_expr.cpp, compile_stmt.cpp, tile_ops.cpp).
CExprP compile_expr(Program& p, const ir::Expr& e);
CStmtP compile_stmt(Program& p, const ir::Stmt& s);
CStmtP compile_tile_op(Program& p, const ir::Stmt& s);  // null when s is not a tile op
// `with T.ws` roles and mbarrier operations (barriers.cpp); null for any other statement.
CStmtP compile_role_or_barrier(Program& p, const ir::Stmt& s);

// Runs a function of one `T.Kernel` launch (run.cpp); run_on_cpu (run_launches.cpp) calls it
// once per launch, in program order, on the same arguments.
InterpReport run_one_launch(const ir::PrimFunc& f, std::map<std::string, HostTensor>& args, const InterpOptions& opts);

// Thread mode (thread_scan.cpp, threads.cpp). Whether a kernel reads its thread index in
// per-thread code and has no block-wide statement under control flow that depends on it other
// than a role split by hand (nor `T.ws` roles or named barriers, nor mbarriers outside such
// roles): such a kernel runs each block as its threads. Whether a statement is block-wide (a
// tile op on shared, fragment or global tiles, a T.Parallel loop); the fibers' barrier; one
// block run as its threads.
bool thread_level(const ir::PrimFunc& f);
// Whether a thread-level kernel has roles split by hand (tile ops or mbarrier operations in a
// branch on an interval of the thread index), which only the interpreter's fibers run.
bool hand_split_roles(const ir::PrimFunc& f);
bool block_wide(const ir::Stmt& s);
// Whether `cond` tests the one-dimensional block's thread index `tid` against constants
// (`tx < 128`, `tx >= 128 and tx < 256`): then the threads of `cur` each branch runs on (the
// else branch's is no interval when the then branch sits inside `cur`).
bool thread_interval(const ir::Expr& cond, const ir::VarNode* tid, ThreadRange cur, ThreadRange& then_r, ThreadRange& else_r);
// A barrier of the threads [lo, hi) (the block's when hi <= lo), keyed by `at`.
void fiber_barrier(Frame& fr, const void* at, Span span, int64_t lo = 0, int64_t hi = 0);
// Parks the thread until the mbarrier word's phase of `parity` completes (barriers.cpp checks
// it); `what` and `count` name the barrier when that never happens.
void fiber_wait_phase(Frame& fr, const double* word, int64_t parity, int64_t count, std::string what, Span span);
bool mbarrier_phase_done(double word, int64_t parity);
std::string mbarrier_held(double word, int64_t count);
// A warp shuffle in thread mode: every thread posts `v`, then reads the value of lane `lane` of
// its segment of `width` lanes (two barriers of the block's threads, keyed by `key`).
double warp_exchange(Frame& fr, double v, int64_t lane, int64_t width, const void* key, Span span);
void run_block_threads(Frame& fr, const CStmt& body, const std::vector<VarSlot>& thread_vars, const std::vector<int64_t>& extents);

// Helpers shared by the statement and tile-op closures (access.cpp).
std::string block_text(const Frame& fr);
std::string shape_text(const BufView& b);
std::string index_text(const int64_t* idx, int n);
[[noreturn]] void throw_oob(const Frame& fr, Span span, const char* what, const ir::BufferNode& buf, const BufView& v,
                            const int64_t* idx, int n);
[[noreturn]] void throw_diag(const Frame& fr, DiagKind kind, Span span, std::vector<std::string> args);
// Flat index of idx in v, or throws OutOfBoundsAccess.
int64_t checked_flat(const Frame& fr, Span span, const char* what, const ir::BufferNode& buf, const BufView& v,
                     const int64_t* idx, int n);
// Stores v (already a double) rounded to dtype; marks written.
void store_value(BufView& b, int64_t flat, double v, ir::DataType t);
double round_value(double v, ir::DataType t);

}  // namespace tp::interp
