// lower_tile_ops: the tile ops left after layout_inference (which lowered everything touching
// fragments, T.gemm and T.reduce_*): a global -> shared tile T.copy becomes tp::copy_g2s
// (16-byte cp.async chunks, zero-filled edges) + commit + wait; other T.copy / T.fill / T.clear
// / tile T.atomic_add become T.Parallel nests (bind_threads spreads them over the block);
// scalar T.atomic_add an atomic call. T.Pipelined loops are left to pipeline_loops.
#pragma once

#include "ir/ir.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// Null when an op could not be lowered (the diagnostic is reported).
ir::PrimFuncPtr lower_tile_ops(const ir::PrimFuncPtr& func, DiagnosticEngine& diags);

}  // namespace tp::transform
