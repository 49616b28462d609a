// check_thread_branches: a tile op (T.copy, T.gemm, T.fill, T.reduce_*, tile T.atomic_add) under a
// branch on the thread index (`if tx < 128:`, a warp role split by hand) is refused for the GPU,
// at the op's line. The CUDA lowering deals a tile op over all the block's threads and warps
// (a gemm's warp partition, a copy's vectors), so under such a branch only part of it would
// run and the kernel would compute something else without a word. The CPU interpreter runs
// these roles as threads (interp/thread_scan.cpp); `with T.ws(...)` is the form the GPU path
// lowers.
#pragma once

#include "ir/ir.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// Returns false when it reported an error.
bool check_thread_branches(const ir::PrimFunc& func, DiagnosticEngine& diags);

}  // namespace tp::transform
