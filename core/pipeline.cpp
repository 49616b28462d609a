// The pass pipeline (see pipeline.h): one line per pass, in order, with why it sits there.
// A logger times every pass and keeps the IR text after the passes asked for.
#include "pipeline.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "transform/bind_threads.h"
#include "transform/check_resources.h"
#include "transform/coarsen_blocks.h"
#include "transform/insert_syncs.h"
#include "transform/layout_inference.h"
#include "transform/lower_tile_ops.h"
#include "transform/math_idioms.h"
#include "transform/pipeline_loops.h"
#include "transform/simplify.h"
#include "transform/verify.h"
#include "transform/warp_specialize.h"
#include "transform/warp_specialize_attention.h"

namespace tp {

namespace {

using PassFn = std::function<ir::PrimFuncPtr(const ir::PrimFuncPtr&, const PipelineOptions&, DiagnosticEngine&)>;
struct Pass {
    const char* name;
    PassFn run;
};

const std::vector<Pass>& passes() {
    using ir::PrimFuncPtr;
    static const std::vector<Pass> list = {
        // The evaluator's output must be well formed before anything relies on it.
        {"verify", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { transform::verify(*f, "evaluate"); return f; }},
        // Fold trace-time constants first so the resource check sees constant shapes.
        {"simplify", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::simplify(f); }},
        // Known float formulas (the exact GELU) to faster runtime routines, on the folded
        // constants; before lowering copies the T.Parallel bodies into per-thread code.
        {"math-idioms", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::math_idioms(f); }},
        // User-facing limits on the kernel as written, before lowering changes its shape.
        {"check-resources", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::check_resources(*f, o.target, d) ? f : nullptr; }},
        // Element-wise kernels with a huge 1-D grid run several blocks per launched block, so
        // each thread keeps more loads in flight; decided on the tile-level IR it inspects.
        {"coarsen-blocks", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::coarsen_blocks(f); }},
        // sm_90a: a whole FlashAttention forward becomes the tp::WsAttention template; on the
        // tile-level IR it checks (constant shapes folded), before the GEMM planner or
        // layout-inference claim its gemms.
        {"warp-specialize-attention", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine&) {
             return transform::warp_specialize_attention(f, o.target); }},
        // sm_90a: a TMA + wgmma GEMM loop gets its consumer warpgroups (threads, FullRow warps)
        // before layout-inference gives the accumulator the matching layout.
        {"plan-warp-specialized", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::plan_warp_specialized(f, o.target, d); }},
        // Fragments to registers first: everything that touches them (T.Parallel loops, T.gemm,
        // T.reduce_*, fragment copies) needs their layout; gemm tiles get their swizzle here.
        {"layout-inference", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::layout_inference(f, o.target, d); }},
        // The remaining tile ops: tile copies into shared memory as cp.async template calls,
        // the rest as T.Parallel nests. Reads the swizzle chosen above.
        {"lower-tile-ops", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine& d) { return transform::lower_tile_ops(f, d); }},
        // sm_90a: the planned loop becomes the producer/consumer ring over the lowered copies and
        // gemm (so before pipeline-loops would multi-buffer them for cp.async).
        {"warp-specialize", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine&) {
             return transform::warp_specialize(f, o.target); }},
        // Multi-buffers the cp.async copies of T.Pipelined loops; emits its own waits and barriers.
        {"pipeline-loops", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine&) { return transform::pipeline_loops(f, o.target); }},
        // Barriers between whole T.Parallel steps and template calls, so before bind-threads
        // splits the steps up, and after the pipeline placed its own.
        {"insert-syncs", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::insert_syncs(f); }},
        // Parallel nests onto threads: after this, codegen sees only serial loops.
        {"bind-threads", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::bind_threads(f); }},
        // Lowering leaves `0 + i`, `x // 1`, extent-1 nests: fold them for readable CUDA.
        {"simplify-lowered", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::simplify(f); }},
        // Lowering passes must leave every buffer and variable in scope.
        {"verify-lowered", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { transform::verify(*f, "simplify-lowered"); return f; }},
    };
    return list;
}

}  // namespace

const std::vector<std::string>& pipeline_pass_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto& p : passes()) n.push_back(p.name);
        return n;
    }();
    return names;
}

PipelineResult run_pipeline(ir::PrimFuncPtr func, const PipelineOptions& opts, DiagnosticEngine& diags) {
    PipelineResult r;
    if (!func) return r;
    if (opts.fast_math) {
        auto f = std::make_shared<ir::PrimFunc>(*func);
        f->attrs["fast_math"] = "true";
        func = f;
    }
    for (const auto& p : passes()) {
        auto t0 = std::chrono::steady_clock::now();
        ir::PrimFuncPtr next;
        try {
            next = p.run(func, opts, diags);
        } catch (InternalError& e) {
            if (e.pass.empty()) e.pass = p.name;
            throw;
        }
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        r.timings.push_back({p.name, ms});
        if (!next || diags.has_errors()) return r;
        func = next;
        bool keep = opts.print_after_all ||
                    std::find(opts.print_after.begin(), opts.print_after.end(), p.name) != opts.print_after.end();
        if (keep) r.snapshots.push_back({p.name, ir::print(*func), ms});
    }
    r.func = func;
    return r;
}

}  // namespace tp
