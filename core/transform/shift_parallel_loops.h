// shift_parallel_loops: a T.Parallel nest that reads or writes a fragment at its loop variables
// plus constants (`acc[bi + 16, d]`, a split store of an accumulator's second half) is
// renumbered so the fragment is accessed at the loop variables themselves: `u = bi + 16` runs
// over the fragment's rows and `bi` becomes `u - 16` everywhere else. TileLang lays such a loop
// out from the fragment's layout through the access; here the renumbered loop is driven by the
// fragment directly, so stage-fragments need not copy the whole fragment through shared memory
// (which can push a kernel over the shared-memory limit). Only where the loop's own guard keeps
// every shifted access inside the fragment (`if bi < 16:` for a shift of 16 rows of 32): the
// iterations the renumbering drops are the ones that guard skips. Runs before stage-fragments;
// the CPU interpreter runs the traced IR, which this pass does not change.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr shift_parallel_loops(const ir::PrimFuncPtr& func);

}  // namespace tp::transform
