// lower_tile_ops: turns the tile ops this code generator lowers so far into plain loops:
// T.copy / T.fill / T.clear / tile T.atomic_add become T.Parallel nests (bind_threads spreads
// them over the block), scalar T.atomic_add an atomic call, T.Pipelined a serial loop (no
// multi-buffering yet). T.gemm and T.reduce_* report NotYetLowered at their line.
#pragma once

#include "ir/ir.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// Null when an op could not be lowered (the diagnostic is reported).
ir::PrimFuncPtr lower_tile_ops(const ir::PrimFuncPtr& func, DiagnosticEngine& diags);

}  // namespace tp::transform
