// shared_reuse: when a kernel's shared buffers laid out one after another exceed the target's
// per-block limit, buffers whose lifetimes do not overlap share bytes (TileLang merges shared
// allocations the same way: an epilogue tile reuses the pipeline's operand rings). Lifetimes are
// spans of the kernel body's top-level statements (a loop is one statement, so everything a
// loop touches is live through all of it); a buffer touched by an asynchronous copy stays live
// to the end. Where a buffer takes over bytes another one used, a __syncthreads before its first
// statement keeps the last readers of the old buffer ahead of the new writers. Kernels that fit
// without sharing, and warp-specialized ones, are left as they are. A buffer the kernel never names
// takes no bytes. A dtype view (tp.alias) keeps
// its tile's bytes: the tile is planned as live wherever either of them is.
//
// The plan is kept in the function's attributes ("tp.smem_offset.<buffer>" and
// "tp.smem_bytes"); shared_budget and the CUDA code generator lay out planned buffers there.
#pragma once

#include <optional>
#include <vector>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

ir::PrimFuncPtr share_shared_memory(const ir::PrimFuncPtr& func, const Target& target);

// Each shared buffer the kernel allocates (allocation order) with the top-level statements it
// is live in, inclusive; empty when the kernel has warp roles or no kernel launch.
struct SharedLifetime {
    ir::Buffer buffer;
    size_t first = 0, last = 0;
};
std::vector<SharedLifetime> shared_lifetimes(const ir::PrimFunc& f);

// The planned byte offset of a shared buffer, when share_shared_memory placed it.
std::optional<int64_t> planned_shared_offset(const ir::PrimFunc& f, const ir::BufferNode& b);
// Bytes the planned buffers span (0 without a plan); unplanned buffers are laid out after them.
int64_t planned_shared_bytes(const ir::PrimFunc& f);

}  // namespace tp::transform
