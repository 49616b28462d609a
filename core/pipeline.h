// The pass pipeline: runs the passes of core/transform in order (core/pipeline.cpp lists
// them one per line with the reason for their order) and keeps the IR after each pass.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/compiler.h"
#include "tileplay/diagnostics.h"

namespace tp {

struct PipelineOptions {
    Target target;
    std::vector<std::string> print_after;  // pass names to snapshot
    bool print_after_all = false;
    bool fast_math = false;
    // Stop before this pass (the layout model takes the IR layout-inference is about to see,
    // to ask the inference itself rather than keep a copy of its decisions); "" runs them all.
    // `launches` then holds the IR before that pass and `func` stays null.
    std::string stop_before;
};

struct PipelineResult {
    ir::PrimFuncPtr func;  // null when a pass reported an error; the launches joined (ir/launches.h)
    // Each `T.Kernel` launch lowered on its own, in program order (one entry for one launch,
    // then the same function as `func`): the code generator makes one kernel of each.
    std::vector<ir::PrimFuncPtr> launches;
    std::vector<PassSnapshot> snapshots;
    std::vector<StageTiming> timings;
};

// Names of the passes in pipeline order (for --print-after validation and docs).
const std::vector<std::string>& pipeline_pass_names();

PipelineResult run_pipeline(ir::PrimFuncPtr func, const PipelineOptions& opts, DiagnosticEngine& diags);
// The same, filling `r` pass by pass: when a pass throws an InternalError, the snapshots of the
// passes before it are in `r` (--print-after shows the IR that led to the compiler bug).
// A function of several launches runs each pass on every launch by itself, so a pass sees one
// launch, its shared memory and its attributes, as it does for a function of one.
void run_pipeline_into(PipelineResult& r, ir::PrimFuncPtr func, const PipelineOptions& opts, DiagnosticEngine& diags);

}  // namespace tp
