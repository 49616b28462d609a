// fold_accumulator_clear: a fragment set to zero everywhere (T.fill / T.clear, or a T.Parallel
// loop over its whole shape storing 0, such as a mask that simplify proved never masks) whose
// next use is as the accumulator of a T.gemm becomes that gemm's clear_accum: the gemm then
// starts from zero itself (wgmma's scale-d = 0 on its first k step) instead of every thread
// storing zeros into the registers first. A mask fill (T.if_then_else(c, 0, -inf) over the
// whole fragment, the scores of attention) before such a gemm moves behind it as the same mask
// added onto the products, so the gemm clears and guard_masks can skip the mask on the tiles
// it leaves alone. Runs on the tile-level IR after simplify.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr fold_accumulator_clear(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
