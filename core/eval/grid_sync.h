// T.sync_grid: a barrier of every block of the grid. A launch boundary is one too (a launch
// starts after the one before it on the stream has finished), so a grid barrier at the top
// level of a `T.Kernel` body is lowered by ending the launch there and running what follows as
// a second launch of the same grid and threads. That holds only while no on-chip state (shared,
// fragment, local and var buffers, let-bound values read from memory) lives across the barrier:
// each launch starts with fresh on-chip memory. Both the code generator and the CPU engines then
// see ordinary launches (ir/launches.h), and no cooperative launch is needed to keep every
// block resident. A barrier inside a loop or branch, or state that crosses it, is refused at
// its line.
#pragma once

#include <vector>

#include "eval/interp.h"
#include "ir/ir.h"

namespace tp::eval {

// The marker T.sync_grid stages in the kernel body.
ir::Stmt grid_sync_marker(Span span);

// `launch` (a KernelLaunch) cut at its top-level grid barriers into launches of the same grid,
// each with only the allocations and lets its statements use; `launch` itself when it has none.
std::vector<ir::Stmt> split_at_grid_syncs(Evaluator& ev, const ir::Stmt& launch);

}  // namespace tp::eval
