// insert_syncs: shared and fragment tiles are per-block arrays in this lowering, so every
// block-wide step that touches one (a T.Parallel nest, a lowered copy/fill, a plain store)
// is followed by __syncthreads(); that covers read-after-write and, inside loops, the
// write-after-read of the next iteration. Runs before bind_threads, while the steps are
// still whole T.Parallel nests. Never places a barrier under a thread-dependent branch.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr insert_syncs(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
