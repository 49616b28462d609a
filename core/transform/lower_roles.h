// lower_roles: `with T.ws(i)` warp-group roles (ir::RoleBlockNode) become code every thread of
// the block runs, in program order, with the roles' mbarrier arrivals made only by the threads
// of their warp groups. The kernel then computes what the interpreter's program-order run does
// (the order it checked, every wait satisfied by arrivals before it) with its tile ops laid out
// for the whole block, as all later passes expect: a correct lowering that gives up the overlap
// of TileLang's specialised warp groups, said in a remark at each role. T.Pipelined loops whose
// stages the user synchronises with roles run as written (serial): the software pipeline would
// move copies across the user's barriers. Marks the function `tp.user_barriers` when it has
// mbarriers, so the automatic producer/consumer split leaves it alone. A role whose code reads
// the thread index means its own threads there, so it is refused (NotYetLowered) at its line.
#pragma once

#include "ir/ir.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

ir::PrimFuncPtr lower_roles(const ir::PrimFuncPtr& func, DiagnosticEngine& diags);

}  // namespace tp::transform
