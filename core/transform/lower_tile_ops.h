// lower_tile_ops: the tile ops left after layout_inference (which lowered everything touching
// fragments, T.gemm and T.reduce_*): a global -> shared tile T.copy becomes tp::copy_g2s
// (16-byte cp.async chunks, zero-filled edges) + commit + wait; other T.copy / T.fill / T.clear
// / tile T.atomic_add become T.Parallel nests (bind_threads spreads them over the block);
// scalar T.atomic_add an atomic call. T.Pipelined loops are left to pipeline_loops. The pass
// is the walk and the block's context; each op lowers itself (codegen/cuda/ops/<op>.cpp).
#pragma once

#include "ir/ir.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// On a TMA target a whole shared tile -> global T.copy in a kernel whose tiles are 1024-byte
// aligned (wgmma or warp-specialized) is a fence, then one thread's TMA stores (tp::tile_store_tma),
// its tensor map appended to the kernel's (`tp.tma_maps`); `tp.disable_tma_store` and
// `tl.disable_tma_lower` keep tp::copy_s2g.
// Null when an op could not be lowered (the diagnostic is reported).
ir::PrimFuncPtr lower_tile_ops(const ir::PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags);

}  // namespace tp::transform
