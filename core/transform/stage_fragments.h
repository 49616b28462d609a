// stage_fragments: a T.Parallel loop that reads or writes a fragment at elements the thread
// running the iteration does not hold (a transpose `t[j, i] = x[i, j]`, a row vector read in a
// loop whose driver is striped, `x[i, jj * 4 + j]` of an accumulator) reaches them through
// shared memory, as TileLang's layout inference would move data between threads: the fragment
// is copied whole into a shared tile of its shape before the loop, the loop reads and writes
// that tile, and a fragment the loop writes is copied back after it. A loop no fragment
// drives (every fragment in it is accessed that way) then runs as a shared-memory loop over the
// whole block. Runs before layout-inference, on the layouts it will choose; the copies and the
// loop stay Tile IR, so the CPU interpreter runs the staged kernel with the same results. A
// remark at the loop names each fragment staged.
#pragma once

#include "ir/ir.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

ir::PrimFuncPtr stage_fragments(const ir::PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags);

}  // namespace tp::transform
