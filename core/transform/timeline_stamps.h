// timeline_stamps: with the pass config `tp.timeline=true` (`tilec run --timeline`), brackets
// every pipeline event of each warp role (the events core/pipeline_view names: TMA loads, ring
// acquires, mbarrier waits, releases, cp.async issues and waits, wgmma issues and waits, mma,
// barriers, tile stores) with %globaltimer stamps recorded by the role's issuing thread into the
// bounded device buffer of runtime/tp_timeline.cuh. The event table (id -> role, kind, label,
// DSL line) goes into the function's attribute `tp.timeline_events` (JSON) for the runner's
// trace writer (tileplay/timeline.h). Without the config the function is returned as it came,
// so the generated code is byte-identical. Runs last, on the lowered IR the code generator
// prints, so it never changes what the other passes decide.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr timeline_stamps(const ir::PrimFuncPtr& func);

// Whether the function asks for stamps (attribute / pass config `tp.timeline`).
bool timeline_requested(const ir::PrimFunc& func);

}  // namespace tp::transform
