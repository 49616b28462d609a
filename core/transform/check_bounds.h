// check_bounds: on-chip buffer accesses (shared, fragment, local) whose index is provably out
// of the buffer's shape for an iteration that always runs, reported at the DSL line before any
// lowering. The CPU interpreter stops at such an access, but on the GPU a fragment or register
// index past the end lands in another element's register or in local memory and the kernel
// silently computes something else (a [heads] fragment written for each of block_M rows).
#pragma once

#include "ir/ir.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// Returns false when it reported an error.
bool check_bounds(const ir::PrimFunc& func, DiagnosticEngine& diags);

}  // namespace tp::transform
