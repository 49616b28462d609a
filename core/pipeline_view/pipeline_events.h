// What one statement of the lowered IR is to a pipeline: a TMA load, a cp.async issue, a wait on
// an mbarrier or a wait group, a wgmma issue, a barrier, a release, other work. Shared by the
// pipeline view (pipeline_model.cpp) and the timeline stamps (transform/timeline_stamps.cpp),
// so the trace and the view name the same events the same way.
#pragma once

#include <optional>
#include <string>

#include "ir/ir.h"
#include "tileplay/pipeline_view.h"

namespace tp::pipeview {

// The event a leaf statement is: a call, a barrier operation, a store, or a loop with no
// synchronising event inside (element-wise work, taken whole). nullopt for the statements a
// walk goes into (sequences, branches, allocations, lets, loops holding events).
std::optional<PipeEvent> classify(const ir::Stmt& s);

// Whether the statement holds an event other than Compute and Scalar (a loop worth entering).
bool has_sync_events(const ir::Stmt& s);

// The buffer a pointer argument (tp.addr_r / tp.addr_w of a BufferLoad) points into, and the
// index of its leading dimension as printed (the ring slot or stage); null when not one.
const ir::BufferLoadNode* pointer_target(const ir::Expr& e);

// One line of IR text (the printer's first line, trimmed).
std::string one_line(const ir::Stmt& s);

}  // namespace tp::pipeview
