// compile(): runs the stages in order (parse, evaluate, passes, codegen, NVRTC) and gathers
// every stage's text, timings and diagnostics into one CompileResult.
#include "tileplay/compiler.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "codegen/cuda/codegen_cuda.h"
#include "codegen/ptx_lines.h"
#include "eval/evaluator.h"
#include "frontend/parser.h"
#include "ir/launches.h"
#include "pipeline.h"
#include "runtime/module_cache.h"
#include "runtime/nvrtc.h"
#include "target.h"
#include "tileplay/source_reader.h"
#include "transform/occupancy_retry.h"
#include "transform/producer_consumer.h"
#include "transform/register_pressure.h"

namespace tp {

const char* stage_name(Stage s) {
    switch (s) {
        case Stage::Ast: return "ast";
        case Stage::Ir: return "ir";
        case Stage::Lowered: return "lowered";
        case Stage::Cuda: return "cuda";
        case Stage::Ptx: return "ptx";
        case Stage::Cubin: return "cubin";
    }
    return "?";
}

std::optional<Stage> parse_stage(const std::string& s) {
    for (Stage st : {Stage::Ast, Stage::Ir, Stage::Lowered, Stage::Cuda, Stage::Ptx, Stage::Cubin})
        if (s == stage_name(st)) return st;
    return std::nullopt;
}

const std::vector<std::string>& supported_targets() {
    static const std::vector<std::string> t = {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"};
    return t;
}

std::string CompileResult::render_diagnostics(bool color, bool remarks) const {
    std::vector<Diagnostic> shown;
    for (const auto& d : diagnostics)
        if (remarks || d.severity != Severity::Remark) shown.push_back(d);
    return tp::render_diagnostics(shown, file.get(), color);
}

double CompileResult::total_ms() const {
    double t = 0;
    for (const auto& s : timings) t += s.ms;
    return t;
}

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}


// Grid and block of the (first) kernel launch. Called again on the lowered function, since
// passes may change the launch (coarse-grained blocks); the runtime launches what it says.
// `launched`: the grid CUDA is given (a linear grid's one dimension), not the DSL's.
void fill_launch_info(const ir::PrimFunc& f, KernelInfo& k, bool launched) {
    std::vector<const ir::StmtNode*> stack = {f.body.get()};
    while (!stack.empty()) {
        const ir::StmtNode* s = stack.back();
        stack.pop_back();
        if (!s) continue;
        if (auto* kl = s->as<ir::KernelLaunchNode>()) {
            k.grid.clear();
            k.grid_text.clear();
            for (const auto& g : kl->grid) {
                auto c = ir::as_const_int(g);
                k.grid.push_back(c ? *c : -1);
                k.grid_text.push_back(ir::print(g));
            }
            k.threads = kl->threads;
            if (launched && kl->linear_grid()) {  // one x dimension of every block (KernelLaunchNode::linear_grid)
                int64_t n = 1;
                std::string text;
                for (size_t i = 0; i < k.grid.size(); ++i) {
                    n = k.grid[i] < 0 || n < 0 ? -1 : n * k.grid[i];
                    text += (i ? " * " : "") + std::string("(") + k.grid_text[i] + ")";
                }
                k.grid = {n};
                k.grid_text = {text};
            }
            return;
        }
        if (auto* seq = s->as<ir::SeqStmtNode>())
            for (auto it = seq->seq.rbegin(); it != seq->seq.rend(); ++it) stack.push_back(it->get());
        else if (auto* a = s->as<ir::AllocateNode>()) stack.push_back(a->body.get());
        else if (auto* l = s->as<ir::LetStmtNode>()) stack.push_back(l->body.get());
    }
}

// Launch `i` of `k` from its lowered function: geometry, TMA maps and persistence.
void fill_lowered_launch(const ir::PrimFunc& f, size_t i, KernelInfo& k) {
    KernelInfo l = k.launch(i);
    fill_launch_info(f, l, true);
    l.tensor_maps = transform::tensor_maps_of(f);
    l.persistent = f.attrs.count("tp.persistent_grid") > 0;
    l.blocks_per_sm = transform::ws_blocks_per_sm(f);
    k.set_launch(i, l);
}

void fill_kernel_info(const ir::PrimFunc& f, KernelInfo& k) {
    k.name = f.name;
    for (const auto& p : f.params) {
        TensorParamInfo t;
        t.name = p.name;
        t.is_output = p.is_output;
        t.is_workspace = p.is_workspace;
        if (p.buffer) {
            t.dtype = p.buffer->dtype.name();
            for (const auto& d : p.buffer->shape) {
                auto c = ir::as_const_int(d);
                t.shape.push_back(c ? *c : -1);
                t.shape_text.push_back(ir::print(d));
            }
        } else if (p.var) {
            t.dtype = p.var->dtype.name();
            t.is_scalar = true;
        }
        k.params.push_back(std::move(t));
    }
    for (const auto& [name, v] : f.bound_params) k.bound_params[name] = std::to_string(v);
    // Every launch's grid as the DSL wrote it; the lowered functions may change the launched one.
    const auto parts = ir::split_launches(std::make_shared<ir::PrimFunc>(f));
    k.later_launches.assign(parts.size() - 1, LaunchInfo{});
    for (size_t i = 0; i < parts.size(); ++i) {
        KernelInfo l = k.launch(i);
        fill_launch_info(*parts[i], l, false);
        l.logical_grid = l.grid;
        l.logical_grid_text = l.grid_text;
        k.set_launch(i, l);
    }
}

}  // namespace

void prepare_process() { runtime::keep_ptxas_reports(); }

bool target_runs_on(const std::string& target, const std::string& device) {
    auto base = [](std::string t) {
        if (!t.empty() && (t.back() == 'a' || t.back() == 'f')) t.pop_back();
        return t;
    };
    return !device.empty() && base(target) == base(device);
}

namespace {

// A module with the user's own CUDA (T.import_source) that NVRTC rejects: most likely that
// code or a T.call_extern into it, so a user error at the first import, with NVRTC's errors.
bool report_imported_source_rejected(const ir::PrimFunc& f, const std::string& log, DiagnosticEngine& diags) {
    auto at = f.attrs.find("tp.import_source_at.0");
    if (at == f.attrs.end()) return false;
    Span span;
    span.begin.line = static_cast<uint32_t>(std::atoi(at->second.c_str()));
    auto colon = at->second.find(':');
    span.begin.col = colon == std::string::npos ? 1 : static_cast<uint32_t>(std::atoi(at->second.c_str() + colon + 1));
    span.end = span.begin;
    std::string errors;  // NVRTC's error lines, at most five
    std::istringstream in(log);
    int n = 0;
    for (std::string line; std::getline(in, line) && n < 5;)
        if (line.find(": error") != std::string::npos) errors += (n++ ? "; " : "") + line;
    diags.report(DiagKind::ImportedSourceRejected, span, {errors.empty() ? log : errors});
    return true;
}

CompileResult compile_once(const CompileRequest& req) {
    CompileResult r;
    std::string text = req.source;
    if (text.empty() && !req.path.empty()) read_source_file(req.path, text);
    bool too_large = text.size() > kMaxSourceBytes;
    if (too_large) text.clear();  // nothing of it is shown, and tokenizing it would take minutes
    r.file = SourceFile::from_string(req.path.empty() ? "<input>" : req.path, text);
    DiagnosticEngine diags(r.file);
    if (too_large) {
        diags.report(DiagKind::SizeTooLarge, {}, {"the source", source_too_large_message()});
        r.diagnostics = diags.take();
        return r;
    }
    auto finish = [&]() {
        r.diagnostics = diags.take();
        bool errors = false;
        for (const auto& d : r.diagnostics) errors |= d.severity == Severity::Error;
        r.ok = !errors && !r.internal_error;
        return r;
    };

    try {
        auto t0 = Clock::now();
        ast::ModulePtr module = frontend::parse_module(r.file, diags);
        r.timings.push_back({"parse", ms_since(t0)});
        if (!module || diags.has_errors()) return finish();
        r.module = module;
        r.factories = eval::find_factories(*module);
        if (req.stop_after == Stage::Ast) {
            r.ast = ast::dump(*module);
            return finish();
        }

        auto target = parse_target(req.target);
        if (!target) {
            diags.report(DiagKind::UnsupportedTarget, {}, {req.target});
            return finish();
        }

        t0 = Clock::now();
        eval::EvalRequest ereq;
        ereq.kernel = req.kernel;
        ereq.defines = req.defines;
        ereq.fallback_defines = req.fallback_defines;
        ereq.target = req.target;
        ereq.trace_step_limit = req.trace_step_limit;
        eval::EvalResult ev = eval::evaluate_kernel(module, ereq, diags);
        r.timings.push_back({"evaluate", ms_since(t0)});
        if (!ev.func || diags.has_errors()) return finish();
        r.func = ev.func;
        r.kernel.factory = ev.factory.name;
        fill_kernel_info(*ev.func, r.kernel);
        r.ir = ir::print(*ev.func);
        if (req.stop_after == Stage::Ir) return finish();

        for (const auto& name : req.print_after) {
            const auto& names = pipeline_pass_names();
            if (std::find(names.begin(), names.end(), name) != names.end()) continue;
            std::string all, near = closest_match(name, names);
            for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
            diags.report(DiagKind::UnknownPass, {}, {name, near.empty() ? "" : " (did you mean `" + near + "`?)", all});
        }
        if (diags.has_errors()) return finish();

        if (!req.pass_configs.empty()) {
            auto f = std::make_shared<ir::PrimFunc>(*ev.func);
            for (const auto& [k, v] : req.pass_configs) {
                f->attrs[k] = v;
                // the same switch as the factory's pass_configs (core/eval/factory.cpp)
                if (k == "tl.enable_fast_math") f->attrs["fast_math"] = v == "true" || v == "1" ? "true" : "false";
            }
            ev.func = f;
        }
        PipelineOptions popts;
        popts.target = *target;
        popts.print_after = req.print_after;
        popts.print_after_all = req.print_after_all;
        popts.fast_math = req.fast_math;
        PipelineResult pr;
        try {
            run_pipeline_into(pr, ev.func, popts, diags);
        } catch (const InternalError&) {
            r.passes = std::move(pr.snapshots);
            throw;
        }
        r.passes = std::move(pr.snapshots);
        r.timings.insert(r.timings.end(), pr.timings.begin(), pr.timings.end());
        if (!pr.func || diags.has_errors()) return finish();
        r.lowered_func = pr.func;
        r.lowered_launches.assign(pr.launches.begin(), pr.launches.end());
        r.lowered = ir::print(*pr.func);
        for (size_t i = 0; i < pr.launches.size(); ++i) fill_lowered_launch(*pr.launches[i], i, r.kernel);
        // The loosest floor any launch declares holds for the kernel's outputs.
        for (const auto& l : pr.launches)
            if (auto t = l->attrs.find("tp.check_tolerance"); t != l->attrs.end())
                r.kernel.check_tolerance = std::max(r.kernel.check_tolerance, std::strtod(t->second.c_str(), nullptr));
        if (req.stop_after == Stage::Lowered) return finish();

        t0 = Clock::now();
        codegen::CudaModule cm = codegen::generate_cuda(pr.launches, *target, r.file->path(), diags, req.lineinfo);
        r.timings.push_back({"codegen", ms_since(t0)});
        if (diags.has_errors() || cm.source.empty()) return finish();
        r.cuda = cm.source;
        r.cuda_lines = cm.lines;
        for (size_t i = 0; i < cm.kernels.size(); ++i) {
            KernelInfo l = r.kernel.launch(i);
            l.name = cm.kernels[i].name;
            l.dynamic_shared_bytes = cm.kernels[i].dynamic_shared_bytes;
            r.kernel.set_launch(i, l);
        }
        r.resources.dynamic_shared_bytes = cm.dynamic_shared_bytes;
        if (req.stop_after == Stage::Cuda) return finish();

        std::string why;
        if (!runtime::nvrtc_available(&why)) {
            diags.report(DiagKind::NvrtcUnavailable, {}, {why});
            return finish();
        }
        // A developer's knob for schedule experiments (docs/compile-time.md): compile this CUDA
        // file in place of the generated source, so a hand-edited kernel can be checked and
        // timed by run and bench before a pass produces it. Said on stderr, never silent.
        if (const char* over = std::getenv("TILEPLAY_CUDA_OVERRIDE"); over && *over) {
            std::ifstream in(over);
            if (in) {
                cm.source.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
                r.cuda = cm.source;
                std::fprintf(stderr, "tilec: TILEPLAY_CUDA_OVERRIDE: compiling %s instead of the generated CUDA\n", over);
            }
        }
        runtime::NvrtcOptions nopts;
        nopts.arch = target->nvrtc_arch();
        nopts.lineinfo = req.lineinfo;
        nopts.use_cache = !runtime::module_cache_bypassed();
        // tl.enable_fast_math (a pass config or the factory's pass_configs) means what TileLang
        // makes of it: --use_fast_math for the whole module (approximate division, flushed
        // subnormals), not only the fast exp2 the code generator picks.
        const auto fm = pr.func->attrs.find("fast_math");
        nopts.fast_math = req.fast_math || (fm != pr.func->attrs.end() && fm->second == "true");
        runtime::NvrtcOutput out = runtime::nvrtc_compile(cm.source, r.file->path() + ".cu", nopts);
        r.timings.push_back({out.cache.empty() ? "nvrtc-ptx" : "nvrtc-cache-" + out.cache, out.ptx_ms});
        if (out.cubin_ms > 0) r.timings.push_back({"nvrtc-cubin", out.cubin_ms});
        r.nvrtc_log = out.log;
        if (!out.ok && report_imported_source_rejected(*pr.func, out.error.empty() ? out.log : out.error, diags)) return finish();
        if (!out.ok) {
            // The code generator promises CUDA that compiles (user errors are caught before
            // it), so NVRTC rejecting it is a compiler bug: report it as one, log included.
            r.internal_error = InternalError("NVRTC rejected the generated CUDA: " + (out.error.empty() ? out.log : out.error),
                                             __FILE__, __LINE__, "nvrtc");
            return finish();
        }
        r.ptx = std::move(out.ptx);
        r.cubin = std::move(out.cubin);
        // Read in every compile, a cache hit too: counted in the total the playground shows.
        t0 = Clock::now();
        r.ptx_lines = codegen::ptx_line_map(r.ptx, r.file->path());
        r.timings.push_back({"ptx-lines", ms_since(t0)});
        ResourceUsage ru = codegen::parse_ptxas_info(out.log);
        ru.dynamic_shared_bytes = cm.dynamic_shared_bytes;
        r.resources = ru;
        int64_t threads = 1;
        for (int64_t t : r.kernel.threads) threads *= t;
        // ptxas reports each kernel of a module; the pressure check reads one kernel's figures.
        if (pr.launches.size() == 1) transform::report_register_pressure(*pr.func, ru, threads, *target, diags);
    } catch (const UserError& e) {
        diags.add(e.diag);
    } catch (const InternalError& e) {
        r.internal_error = e;
    } catch (const std::exception& e) {
        r.internal_error = InternalError(e.what(), __FILE__, __LINE__, "unknown");
    }
    return finish();
}

}  // namespace

// A FastPathNotTaken remark at the kernel, for what compile() learns only from ptxas.
static Diagnostic fast_path_remark(const CompileResult& r, const std::vector<std::string>& args) {
    Diagnostic d;
    d.kind = DiagKind::FastPathNotTaken;
    d.severity = Severity::Remark;
    d.file = r.file ? r.file->path() : "";
    if (r.lowered_func) d.span = r.lowered_func->span;
    d.message = format_diag(DiagKind::FastPathNotTaken, args);
    return d;
}

// A memory-bound kernel that registers hold to a quarter of the SM's warps (occupancy_retry.h) is
// compiled again asking ptxas for more blocks per SM; the first build that spills nothing and
// uses fewer registers replaces `r`, and `base` takes its pass config.
static void retry_for_occupancy(CompileRequest& base, CompileResult& r) {
    // The retry caps one kernel's registers from that kernel's ptxas figures.
    if (!r.ok || !r.func || !r.lowered_func || r.resources.registers <= 0 || r.kernel.launch_count() > 1) return;
    int64_t threads = 1;
    for (int64_t t : r.kernel.threads) threads *= t;
    auto target = parse_target(base.target);
    if (!target) return;
    for (int blocks : transform::occupancy_retry_blocks(*r.func, *r.lowered_func, r.resources, threads, *target)) {
        CompileRequest more = base;
        more.pass_configs.emplace_back("tp.min_blocks_per_sm", std::to_string(blocks));
        CompileResult capped = compile_once(more);
        if (capped.ok && capped.resources.spill_store_bytes <= 0 && capped.resources.stack_bytes <= 0 &&
            capped.resources.registers < r.resources.registers) {
            r = std::move(capped);
            base = std::move(more);
            return;
        }
    }
}

// A running wgmma group owns its accumulator and operand registers until its wait: if ptxas
// spills registers of a kernel whose groups overlap other work, a spill or refill could land
// on one of them and silently corrupt the result. Such a kernel is compiled again with every
// wait right after its issue, and a remark says so.
CompileResult compile(const CompileRequest& req) {
    CompileRequest base = req;
    CompileResult r = compile_once(base);
    // Two blocks to an SM cap registers at 128 per thread: if the consumers spill at the 232
    // they grow to, or ptxas cannot fit an instruction under the cap (a wgmma of N=256 holds
    // 128 accumulator registers), one block gets the whole register file instead.
    std::vector<Diagnostic> remarks;  // what the recompiles learned, on whichever result is returned
    const bool spilled = r.ok && r.resources.spill_store_bytes > 0;
    if ((spilled || r.internal_error) && r.lowered_func && transform::ws_blocks_per_sm(*r.lowered_func) > 1) {
        CompileRequest one = base;
        one.pass_configs.emplace_back("tp.blocks_per_sm", "1");
        if (CompileResult alone = compile_once(one); alone.ok) {
            const std::string why = spilled ? "ptxas spilled " + std::to_string(r.resources.spill_store_bytes) + " bytes under the 128-register cap of two blocks"
                                            : "ptxas could not fit an instruction under the 128-register cap of two blocks";
            r = std::move(alone);
            base = std::move(one);
            remarks.push_back(fast_path_remark(r, {"two blocks per SM", why, "one block per SM gets the whole register file"}));
        }
    }
    retry_for_occupancy(base, r);
    const bool async = r.lowered_func && r.lowered_func->attrs.count("tp.async_wgmma");
    if (r.ok && async && r.resources.spill_store_bytes > 0) {
        CompileRequest again = base;
        again.pass_configs.emplace_back("tp.disable_async_wgmma", "true");
        if (CompileResult safe = compile_once(again); safe.ok) {
            remarks.push_back(fast_path_remark(r, {"wgmma groups running beside other work",
                                                   "ptxas spilled " + std::to_string(r.resources.spill_store_bytes) +
                                                       " bytes of registers, and a spill of a running group's registers would corrupt it",
                                                   "every wgmma group is waited for right after its issue"}));
            r = std::move(safe);
        }
    }
    r.diagnostics.insert(r.diagnostics.end(), remarks.begin(), remarks.end());
    return r;
}

std::vector<FactoryInfo> list_factories(const std::string& path, const std::string& source,
                                        std::vector<Diagnostic>* out_diags) {
    auto file = SourceFile::from_string(path, source);
    DiagnosticEngine diags(file);
    std::vector<FactoryInfo> f;
    auto module = frontend::parse_module(file, diags);
    if (module) f = eval::find_factories(*module);
    if (out_diags) *out_diags = diags.take();
    return f;
}

}  // namespace tp
