// A compiled launch: the ORC JIT that owns its code and the two entry points the emitter made
// (tp_block runs one block, tp_grid evaluates the grid). Shared by jit_api.cpp, run_blocks.cpp
// and the compile cache (kernel_cache.h): a handle holds a shared reference, so a kernel the
// cache keeps lives on after the caller releases its handle.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

#include <memory>
#include <vector>

#include "jit/emit.h"

namespace tp::jit {

using BlockFn = void (*)(const Ctx*, State*, int64_t, int64_t, int64_t);
using GridFn = void (*)(const Ctx*, State*, int64_t*);

struct Kernel {
    std::unique_ptr<llvm::orc::LLJIT> jit;
    BlockFn block = nullptr;
    GridFn grid = nullptr;
    int n_params = 0;
    bool has_print = false;   // the blocks' T.print text is collected
    std::vector<Span> sites;  // the polling loops' spans (State::site)
    // A thread-level kernel (block_threads.h): each block runs as its `threads` threads, on
    // fibers with stacks of `stack_bytes`; its shared and fragment buffers take `shared_bytes`.
    bool thread_mode = false;
    int64_t threads = 1;
    int64_t shared_bytes = 0;
    int64_t stack_bytes = 0;
};

// What the ABI's compile hands out and release deletes.
struct Handle {
    std::shared_ptr<const Kernel> kernel;
};

}  // namespace tp::jit
