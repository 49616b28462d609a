// The pass pipeline (see pipeline.h): one line per pass, in order, with why it sits there.
// A logger times every pass and keeps the IR text after the passes asked for.
#include "pipeline.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "ir/launches.h"
#include "transform/bind_threads.h"
#include "transform/check_bounds.h"
#include "transform/check_resources.h"
#include "transform/check_thread_branches.h"
#include "transform/coarsen_blocks.h"
#include "transform/drop_redundant_copies.h"
#include "transform/heavy_blocks_first.h"
#include "transform/fma_gemm.h"
#include "transform/hoist_gemm_operand.h"
#include "transform/fold_accumulator_clear.h"
#include "transform/guard_masks.h"
#include "transform/insert_syncs.h"
#include "transform/layout_inference.h"
#include "transform/lower_roles.h"
#include "transform/lower_tile_ops.h"
#include "transform/math_idioms.h"
#include "transform/merge_async_waits.h"
#include "transform/pipeline_loops.h"
#include "transform/producer_consumer.h"
#include "transform/shared_budget.h"
#include "transform/shared_reuse.h"
#include "transform/serial_reduce.h"
#include "transform/simplify.h"
#include "transform/shift_parallel_loops.h"
#include "transform/stage_fragments.h"
#include "transform/timeline_stamps.h"
#include "transform/unstage_shared.h"
#include "transform/verify.h"
#include "transform/wgmma_waits.h"

namespace tp {

namespace {

double ms_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

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
        // On-chip accesses past a buffer's end, on the folded constants and before any pass
        // rewrites the user's indices, so the error names the line the user wrote.
        {"check-bounds", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine& d) { return transform::check_bounds(*f, d) ? f : nullptr; }},
        // Tile ops under a branch on the thread index (roles split by hand) are refused at their
        // line: every lowering below deals a tile op over the whole block.
        {"check-thread-branches", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine& d) { return transform::check_thread_branches(*f, d) ? f : nullptr; }},
        // `with T.ws` roles run on the whole block in program order, their arrivals guarded by
        // their warp groups, so every later pass sees block-wide tile ops only.
        {"lower-roles", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine& d) { return transform::lower_roles(f, d); }},
        // Known float formulas (the exact GELU) to faster runtime routines, on the folded
        // constants; before lowering copies the T.Parallel bodies into per-thread code.
        {"math-idioms", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::math_idioms(f); }},
        // A zeroed accumulator whose next use is a T.gemm: the gemm clears it (wgmma's scale-d),
        // after simplify folded masks no iteration meets into zero fills.
        {"fold-accumulator-clear", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::fold_accumulator_clear(f); }},
        // A mask nest that leaves most tiles unchanged (fold-accumulator-clear moved it behind
        // its gemm) runs only where a block-uniform test of its condition says it changes one.
        {"guard-masks", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::guard_masks(f); }},
        // User-facing limits on the kernel as written, before lowering changes its shape.
        {"check-resources", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::check_resources(*f, o.target, d) ? f : nullptr; }},
        // Shared buffers that only relay global memory to element-wise code are bypassed
        // (after the limits are checked on the kernel as written; before coarsening and layout
        // inference see the loops that now read and write global memory themselves).
        {"unstage-shared", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine&) { return transform::unstage_shared(f, o.target); }},
        // A tile copied again from the same region with nothing written between keeps what the
        // first copy loaded; on tile ops, after unstage-shared settled which copies stay, before
        // coarsening copies them into block loops and layout inference lays out their tiles.
        {"drop-redundant-copies", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::drop_redundant_copies(f); }},
        // Element-wise kernels with a huge 1-D grid run several blocks per launched block, so
        // each thread keeps more loads in flight; decided on the tile-level IR it inspects.
        {"coarsen-blocks", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::coarsen_blocks(f); }},
        // Blocks whose loops run longest (a causal key loop) are launched first, so they do
        // not stretch the last wave.
        {"heavy-blocks-first", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::heavy_blocks_first(f); }},
        // T.gemm on types no Tensor-Core path takes (float32, int8...) becomes multiply-add
        // loops here, so layout inference lays out its accumulator like element-wise code.
        {"fma-gemm", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine& d) { return transform::fma_gemm(f, d); }},
        // Likewise T.reduce_* from shared memory (no registers to reduce across threads): a
        // serial loop per destination element, laid out by layout inference.
        {"serial-reduce", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::serial_reduce(f); }},
        // sm_90a: a gemm's loop-invariant shared A (attention's Q) copied once into registers
        // before the loop, so each issue reads only B from shared memory (RS wgmma).
        {"hoist-gemm-operand", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::hoist_gemm_operand(f, o.target, d); }},
        // A loop that reads a fragment at its variables plus constants (a split store of an
        // accumulator's half) is renumbered to the fragment's own indices, so the next pass
        // finds it thread-local instead of staging the whole fragment in shared memory.
        {"shift-parallel-loops", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) {
             return transform::shift_parallel_loops(f); }},
        // Loops that reach fragment elements other threads hold go through shared copies,
        // decided on the layouts layout-inference is about to choose (it re-infers after).
        {"stage-fragments", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::stage_fragments(f, o.target, d); }},
        // Fragments to registers first: everything that touches them (T.Parallel loops, T.gemm,
        // T.reduce_*, fragment copies) needs their layout; gemm tiles get their swizzle here.
        {"layout-inference", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::layout_inference(f, o.target, d); }},
        // sm_90a: each wgmma group's wait as late as its operands allow, before the channels'
        // windows are drawn from the statements that name a tile (the wait is the last).
        {"wgmma-waits", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::wgmma_waits(f); }},
        // sm_90a: global -> shared copies become TMA channels of a producer warpgroup; the
        // user's threads become the consumers. After layout-inference lowered everything that
        // touches fragments for the consumers' thread count, while the copies are tile ops.
        {"producer-consumer", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::producer_consumer(f, o.target, d); }},
        // The remaining tile ops: tile copies into shared memory as cp.async template calls,
        // the rest as T.Parallel nests. Reads the swizzle chosen above.
        {"lower-tile-ops", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) { return transform::lower_tile_ops(f, o.target, d); }},
        // Multi-buffers the cp.async copies of T.Pipelined loops; emits its own waits and barriers.
        {"pipeline-loops", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine&) { return transform::pipeline_loops(f, o.target); }},
        // Tile copies left outside pipelines go out together, one wait for all of them.
        {"merge-async-waits", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::merge_async_waits(f); }},
        // A block over the shared-memory limit reuses the bytes of buffers whose lifetimes are
        // over (the epilogue tile in the pipeline's rings), once every buffer exists.
        {"share-shared-memory", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine&) { return transform::share_shared_memory(f, o.target); }},
        // Every pass that adds shared buffers has run: the laid-out total must fit the block.
        {"check-shared-budget", [](const PrimFuncPtr& f, const PipelineOptions& o, DiagnosticEngine& d) {
             return transform::check_shared_budget(*f, o.target, d) ? f : nullptr; }},
        // Barriers between whole T.Parallel steps and template calls, so before bind-threads
        // splits the steps up, and after the pipeline placed its own.
        {"insert-syncs", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::insert_syncs(f); }},
        // Parallel nests onto threads: after this, codegen sees only serial loops.
        {"bind-threads", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::bind_threads(f); }},
        // Lowering leaves `0 + i`, `x // 1`, extent-1 nests: fold them for readable CUDA.
        {"simplify-lowered", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::simplify(f); }},
        // `tp.timeline`: globaltimer stamps around each role's pipeline events, on the code as
        // printed, so no pass above sees them; without the config nothing changes.
        {"timeline-stamps", [](const PrimFuncPtr& f, const PipelineOptions&, DiagnosticEngine&) { return transform::timeline_stamps(f); }},
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
    run_pipeline_into(r, std::move(func), opts, diags);
    return r;
}

void run_pipeline_into(PipelineResult& r, ir::PrimFuncPtr func, const PipelineOptions& opts, DiagnosticEngine& diags) {
    if (!func) return;
    if (opts.fast_math) {
        auto f = std::make_shared<ir::PrimFunc>(*func);
        f->attrs["fast_math"] = "true";
        func = f;
    }
    std::vector<ir::PrimFuncPtr> launches = ir::split_launches(func);
    for (const auto& p : passes()) {
        if (!opts.stop_before.empty() && opts.stop_before == p.name) {
            r.launches = std::move(launches);
            return;
        }
        auto t0 = std::chrono::steady_clock::now();
        for (auto& launch : launches) {
            ir::PrimFuncPtr next;
            try {
                next = p.run(launch, opts, diags);
            } catch (InternalError& e) {
                if (e.pass.empty()) e.pass = p.name;
                throw;
            }
            if (!next || diags.has_errors()) {
                r.timings.push_back({p.name, ms_since(t0)});
                return;
            }
            launch = next;
        }
        double ms = ms_since(t0);
        r.timings.push_back({p.name, ms});
        bool keep = opts.print_after_all ||
                    std::find(opts.print_after.begin(), opts.print_after.end(), p.name) != opts.print_after.end();
        if (keep) r.snapshots.push_back({p.name, ir::print(*ir::join_launches(launches)), ms});
    }
    r.func = ir::join_launches(launches);
    r.launches = std::move(launches);
}

}  // namespace tp
