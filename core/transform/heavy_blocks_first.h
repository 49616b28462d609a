// heavy_blocks_first: when a loop's trip count grows with a block index (causal attention's
// key loop, min(ceildiv(S, N), ceildiv((bx + 1) * M, N)), triangular solves), the blocks with
// the most work are launched first by reading that index backwards (bx := G - 1 - bx). The
// GPU dispatches blocks in index order, so the longest blocks no longer start last and stretch
// the final wave: the tail is made of the shortest ones. The mapping is a bijection of the
// block indices, so every block still computes the same tile.
#pragma once

#include <optional>
#include <vector>

#include "ir/ir.h"

namespace tp::transform {

// The extents of `body`'s loops that name `var`, the lets in scope inlined: the trip counts a
// block index decides (also read by the persistent walk, which pairs unequal blocks).
std::vector<ir::Expr> extents_naming(const ir::Stmt& body, const ir::VarNode* var);
// `extent` with `var` = value, folded; nullopt when it does not fold to a constant.
std::optional<int64_t> extent_at(const ir::Expr& extent, const ir::VarNode* var, int64_t value);

ir::PrimFuncPtr heavy_blocks_first(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
