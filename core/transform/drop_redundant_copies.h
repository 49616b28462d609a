// drop_redundant_copies: a T.copy into a fragment or shared tile that the tile still holds from
// an earlier T.copy is removed. TileLang's online softmax with one tile a row copies the row of X
// into the same fragment in each of its two passes over the row; the second copy reloads from
// global memory what the registers already hold (0.1687 -> 0.1618 ms on the H200 without it).
//
// The copy goes only when the pass proves, on the tile-level IR, that the tile holds exactly the
// values the copy would write:
//   - an earlier copy with the same source buffer and region and the same destination buffer and
//     region (compared after simplification; a loop that runs once stands for its start) ran
//     whenever this one runs: it precedes it in the same statement list, or in an enclosing one,
//     with no branch between that could skip it and no loop around it that may run other than once;
//   - nothing between writes the destination buffer (stores, tile ops, loops, branches, any call
//     that may write memory) or the source (a global source must be one the kernel never writes,
//     since other blocks run alongside; an on-chip one must not be written between);
//   - the regions read no memory (their index expressions are arithmetic on variables that are
//     bound, and keep their values, across both copies).
// Anything it cannot prove keeps the copy. `tp.drop_redundant_copies=false` switches it off.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr drop_redundant_copies(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
