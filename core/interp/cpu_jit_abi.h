// The C-style interface between the core and libtileplay_jit (core/jit), the optional LLVM back
// end for CPU runs. The core dlopen()s the library and calls tileplay_jit_api(); nothing of LLVM
// reaches the core, so tilec builds and runs on a machine without LLVM. Both sides come from one
// build: the PrimFunc crosses as an opaque pointer the library reads with the same headers, and
// no C++ object the library allocates is handed back (only these plain structs and a handle).
#pragma once

#include <stdint.h>

extern "C" {

#define TP_JIT_ABI_VERSION 3
#define TP_JIT_MAX_RANK 8

// One per PrimFunc parameter, in signature order.
typedef struct TpJitParam {
    void* data;                      // a tensor's bytes (row-major, its dtype); null for a scalar
    int64_t shape[TP_JIT_MAX_RANK];  // a tensor's shape
    int32_t rank;
    double scalar;     // a scalar parameter's value
    uint8_t* written;  // per element, set to 1 by each store (null: not tracked)
} TpJitParam;

typedef struct TpJitRunOptions {
    int32_t threads;        // block workers; 0 = hardware concurrency
    const int64_t* blocks;  // linear block indices to run; null = every block
    int64_t n_blocks;
    const void* cancel;   // const std::atomic<bool>*: stop at the next block or outer loop
    double watchdog_s;    // 0 = no limit
    void* progress_done;  // std::atomic<int64_t>*: finished blocks are added (may be null)
    // std::atomic<int64_t>*: the blocks this run will do are added before the first starts, so
    // a progress bar has its total while the run goes on (may be null)
    void* progress_total;
    // Receives the blocks' T.print text in block order once the run ends (not after a fault:
    // the interpreter's re-run prints then). Null: the text is dropped.
    void (*print)(void* user, const char* text, int64_t size);
    void* print_user;
} TpJitRunOptions;

enum TpJitStatus {
    TP_JIT_OK = 0,
    TP_JIT_FAULT = 1,  // an out-of-bounds access, a division by zero or a failed assert: the
                       // caller re-runs the launch on the interpreter for its diagnostic
    TP_JIT_CANCELLED = 2,
    TP_JIT_TIMEOUT = 3,
    TP_JIT_ERROR = 4,  // the library failed (message says why); the caller falls back
};

typedef struct TpJitRunResult {
    int32_t status;
    int64_t grid[3];
    int64_t blocks_run;
    double ms;  // wall time of the block loop
    int32_t threads_used;
    int64_t fault_block;  // first faulting block (block order), -1 when none
    // A timeout or cancel: the loop the first stopped block (in block order) was in, as the
    // DSL span (begin line, col, end line, col; zeros when unknown), and that block.
    uint32_t stop_span[4];
    int64_t stop_block;
    char message[256];
} TpJitRunResult;

typedef struct TpJitApi {
    int32_t abi_version;
    // "LLVM 16.0.6 ORC JIT, znver3 (avx2 avx512f f16c fma)"
    const char* (*describe)(void);
    // Lowers and compiles the launch `prim_func` (a const tp::ir::PrimFunc* of one T.Kernel
    // launch). Returns a handle, or null with `reason` saying what the JIT does not lower.
    // flags: 1 = bounds-check every buffer access (a fault, never a wild access); 2 = set the
    // `written` flags of TpJitParam on global stores. `cached` (may be null) says where the code
    // came from: 0 compiled now, 1 this process's compile cache, 2 the object cache on disk.
    void* (*compile)(const void* prim_func, int32_t flags, double* compile_ms, int32_t* cached, char* reason, int32_t reason_size);
    // Runs the grid's blocks on a pool of threads. Returns out->status.
    int32_t (*run)(void* kernel, TpJitParam* params, int32_t n_params, const TpJitRunOptions* opts, TpJitRunResult* out);
    void (*release)(void* kernel);
    // Forgets the compiled kernels this process keeps (tests; the object cache on disk stays).
    void (*forget_kernels)(void);
} TpJitApi;

typedef const TpJitApi* (*TpJitApiFn)(void);
const TpJitApi* tileplay_jit_api(void);

}  // extern "C"
