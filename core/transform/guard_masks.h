// guard_masks: a T.Parallel nest that leaves its tile unchanged wherever a
// condition holds
// (`acc[i, j] = T.if_then_else(c, acc[i, j], v)`, the form
// fold_accumulator_clear gives a score mask) runs only on the tiles where the
// condition fails somewhere. When c compares expressions affine in the nest's
// variables (a causal q_idx >= k_idx, a kv tail k*N + j < S), whether it holds
// on the whole tile is a block-uniform test of its extreme corner
// (transform/box_predicate.h), so the nest is wrapped in `if not <that>`: the
// key tiles below a causal diagonal skip the mask's compares and selects, as
// FlashAttention-3's hand-split loop does, and a kernel without such a mask is
// unchanged. Runs on the tile-level IR.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr guard_masks(const ir::PrimFuncPtr &func);

} // namespace tp::transform
