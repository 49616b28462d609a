// check_thread_branches: a T.gemm under a branch on the thread index (`if tx < 128:`, a warp
// role split by hand) is refused for the GPU, at its line. The CUDA lowering partitions a gemm
// over every warp of the block, so under such a branch only part of it would run and the kernel
// would compute something else without a word. The CPU interpreter runs these roles as threads
// (interp/thread_scan.cpp); `with T.ws(...)` is the form the GPU path lowers.
//
// Other tile ops are not refused here: one whose layout keeps its elements in the branch's
// threads is correct (mHC's sinkhorn reduces a 4 x 4 tile under `tx < 32` and matches the
// interpreter on the H200), and telling that apart needs the layout, which is chosen later. A
// copy or fill under such a branch that spans more threads than the branch holds is still
// lowered as the whole block's: that case is left open (docs/conformance.md).
#pragma once

#include "ir/ir.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// Returns false when it reported an error.
bool check_thread_branches(const ir::PrimFunc& func, DiagnosticEngine& diags);

}  // namespace tp::transform
