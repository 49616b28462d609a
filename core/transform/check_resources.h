// check_resources: user-facing limits and feature checks against the target, before any
// lowering: shared memory per block (times pipeline stages for tiles TileLang multi-buffers),
// threads per block, and dtype features (bfloat16 MMA needs sm_80, float8 needs sm_89).
#pragma once

#include "ir/ir.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// Returns false when it reported an error.
bool check_resources(const ir::PrimFunc& func, const Target& target, DiagnosticEngine& diags);

}  // namespace tp::transform
