// The rule by which a T.Parallel nest over fragments runs on the threads, shared by the pass
// that lowers it (layout_inference's rewrite, lower_fragments_parallel.cpp) and the pass that
// moves what it cannot lower through shared memory first (stage_fragments): the nest is
// driven by its first fragment indexed with the loop variables in order, and each fragment
// access must then name an element the thread running that iteration holds.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/ir.h"
#include "transform/fragment_layout.h"

namespace tp::transform {

// The indices of a fragment access without those on unit dims (always 0), so x[0, j] of a
// (1, N) fragment matches a 1-D loop over j.
std::vector<ir::Expr> squeeze_unit_dims(const ir::Buffer& b, const std::vector<ir::Expr>& idx);

// Whether an access at `idx` (squeezed) of a fragment laid out as `l` can drive a nest over
// `vars` with extents `ext`: indexed by every loop variable in order, over the layout's tile
// (a striped fragment: over all its elements).
bool drives_nest(const FragLayout& l, const std::vector<ir::Expr>& idx, const std::vector<const ir::VarNode*>& vars, const std::vector<int64_t>& ext);

// Whether an access at `idx` (squeezed) of a fragment laid out as `l` (not Replicated, which
// any thread may read anywhere) names an element that the thread running the iteration holds
// when the nest is driven by a fragment laid out as `drv`.
bool follows_driver(const FragLayout& l, const FragLayout& drv, const std::vector<ir::Expr>& idx, const std::vector<const ir::VarNode*>& vars,
                    const std::vector<int64_t>& ext);

}  // namespace tp::transform
