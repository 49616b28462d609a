// heavy_blocks_first: when a loop's trip count grows with a block index (causal attention's
// key loop, min(ceildiv(S, N), ceildiv((bx + 1) * M, N)), triangular solves), the blocks with
// the most work are launched first by reading that index backwards (bx := G - 1 - bx). The
// GPU dispatches blocks in index order, so the longest blocks no longer start last and stretch
// the final wave: the tail is made of the shortest ones. The mapping is a bijection of the
// block indices, so every block still computes the same tile.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr heavy_blocks_first(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
