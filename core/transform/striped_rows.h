// Row statistics of striped tiles kept in the rows' own threads. Layout inference first
// replicates the result of a row reduction of a striped fragment in every thread (any loop may
// then read any row). Where the tile's runs never cross a row and each round of runs holds
// whole rows (a per-token fp8 cast's 8 x 128 rows on 128 threads in runs of 8: 16 threads a
// row), and the result and the row vectors computed from it are only read at the row of an
// element loop over the tile or in loops over the rows, they are laid out as
// FragLayout::StripedRow instead: each thread keeps the rows its runs lie in. The reduction
// is then shuffles within the row's lanes (no shared memory, no block barrier), and a row's
// value is a register, not a replicated array read at a thread-dependent index (local memory).
#pragma once

#include <map>

#include "transform/fragment_layout.h"
#include "transform/layout_collect.h"

namespace tp::transform {

// Rewrites Replicated layouts in `layouts` to StripedRow where every access allows it; runs
// after the striped run lengths are chosen (the rows' threads depend on them).
void keep_rows_in_their_threads(const layout_detail::Collector& c, std::map<const ir::BufferNode*, FragLayout>& layouts);

}  // namespace tp::transform
