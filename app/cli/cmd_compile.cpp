// `tilec compile`: DSL -> AST / IR / lowered IR / CUDA / PTX / cubin, with pass snapshots,
// stage timings and a JSON report.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_common.h"

namespace tilec {

namespace {

struct CompileOptions {
    std::string file;
    std::string kernel;
    std::vector<std::string> defines, pass_configs;
    std::string arch = "sm_90";
    std::string emit = "cuda";
    std::string output;
    std::vector<std::string> print_after;
    bool print_after_all = false;
    bool time_passes = false;
    bool json = false;
    bool no_lineinfo = false;
    bool fast_math = false;
    bool remarks = false;
};

nlohmann::json diagnostics_json(const tp::CompileResult& r) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& d : r.diagnostics) {
        out.push_back({{"kind", tp::diag_info(d.kind).name},
                       {"severity", tp::severity_name(d.severity)},
                       {"message", d.message},
                       {"file", d.file},
                       {"line", d.span.begin.line},
                       {"col", d.span.begin.col},
                       {"end_line", d.span.end.line},
                       {"end_col", d.span.end.col}});
    }
    return out;
}

nlohmann::json result_json(const tp::CompileResult& r, tp::Stage emit) {
    nlohmann::json j;
    j["ok"] = r.ok;
    j["file"] = r.file ? r.file->path() : "";
    j["diagnostics"] = diagnostics_json(r);
    if (r.internal_error) j["internal_error"] = {{"message", r.internal_error->what()}, {"file", r.internal_error->file},
                                                 {"line", r.internal_error->line}, {"pass", r.internal_error->pass}};
    nlohmann::json t = nlohmann::json::array();
    for (const auto& s : r.timings) t.push_back({{"name", s.name}, {"ms", s.ms}});
    j["timings"] = t;
    j["total_ms"] = r.total_ms();
    nlohmann::json f = nlohmann::json::array();
    for (const auto& fa : r.factories) {
        nlohmann::json ps = nlohmann::json::array();
        for (const auto& p : fa.params)
            ps.push_back({{"name", p.name}, {"default", p.default_text}, {"kind", p.kind}, {"required", p.required}});
        f.push_back({{"name", fa.name}, {"line", fa.line}, {"params", ps}, {"autotune", fa.is_autotune}});
    }
    j["factories"] = f;
    const auto& k = r.kernel;
    nlohmann::json params = nlohmann::json::array();
    for (const auto& p : k.params)
        params.push_back({{"name", p.name}, {"dtype", p.dtype}, {"shape", p.shape}, {"shape_text", p.shape_text},
                          {"output", p.is_output}, {"scalar", p.is_scalar}});
    j["kernel"] = {{"name", k.name},
                   {"factory", k.factory},
                   {"params", params},
                   {"grid", k.grid},
                   {"grid_text", k.grid_text},
                   {"logical_grid", k.logical_grid},
                   {"threads", k.threads},
                   {"blocks_per_sm", k.blocks_per_sm},
                   {"persistent", k.persistent},
                   {"dynamic_shared_bytes", k.dynamic_shared_bytes},
                   {"bound_params", k.bound_params}};
    const auto& ru = r.resources;
    j["resources"] = {{"registers", ru.registers}, {"static_shared_bytes", ru.static_shared_bytes},
                      {"dynamic_shared_bytes", ru.dynamic_shared_bytes}, {"spill_store_bytes", ru.spill_store_bytes},
                      {"spill_load_bytes", ru.spill_load_bytes}, {"stack_bytes", ru.stack_bytes}};
    nlohmann::json passes = nlohmann::json::array();
    for (const auto& p : r.passes) passes.push_back({{"pass", p.pass}, {"ms", p.ms}, {"ir", p.ir}});
    j["passes"] = passes;
    switch (emit) {
        case tp::Stage::Ast: j["ast"] = r.ast; break;
        case tp::Stage::Ir: j["ir"] = r.ir; break;
        case tp::Stage::Lowered: j["lowered"] = r.lowered; break;
        case tp::Stage::Cuda: j["cuda"] = r.cuda; j["cuda_line_map"] = r.cuda_lines.to_dsl; break;
        case tp::Stage::Ptx: j["ptx"] = r.ptx; j["ptx_line_map"] = r.ptx_lines.to_dsl; break;
        case tp::Stage::Cubin: j["cubin_bytes"] = r.cubin.size(); break;
    }
    return j;
}

const std::string& stage_text(const tp::CompileResult& r, tp::Stage s) {
    switch (s) {
        case tp::Stage::Ast: return r.ast;
        case tp::Stage::Ir: return r.ir;
        case tp::Stage::Lowered: return r.lowered;
        case tp::Stage::Cuda: return r.cuda;
        default: return r.ptx;
    }
}

void print_timings(const tp::CompileResult& r) {
    std::fprintf(stderr, "===-------------------------------------------===\n");
    std::fprintf(stderr, "  tilec stage and pass timings\n");
    std::fprintf(stderr, "===-------------------------------------------===\n");
    for (const auto& s : r.timings) std::fprintf(stderr, "  %10.3f ms  %s\n", s.ms, s.name.c_str());
    std::fprintf(stderr, "  %10.3f ms  total\n", r.total_ms());
}

int run_compile(const CompileOptions& o) {
    auto emit = tp::parse_stage(o.emit);
    if (!emit) {
        std::fprintf(stderr, "tilec: error: unknown --emit `%s`; expected ast, ir, lowered, cuda, ptx or cubin\n", o.emit.c_str());
        return kUsage;
    }
    if (*emit == tp::Stage::Cubin && o.output.empty() && !o.json) {
        std::fprintf(stderr, "tilec: error: `--emit cubin` writes binary data; give `-o FILE`\n");
        return kUsage;
    }
    std::string source;
    if (!read_file(o.file, source)) return kUserError;
    std::vector<std::pair<std::string, std::string>> defines;
    if (!parse_defines(o.defines, defines)) return kUserError;

    tp::CompileRequest req = make_request(o.file, source, o.kernel, defines, o.arch);
    req.stop_after = *emit;
    req.print_after = o.print_after;
    req.print_after_all = o.print_after_all;
    req.lineinfo = !o.no_lineinfo;
    req.fast_math = o.fast_math;
    if (!parse_defines(o.pass_configs, req.pass_configs, true)) return kUsage;
    tp::CompileResult r = tp::compile(req);

    if (o.time_passes) print_timings(r);
    for (const auto& snap : r.passes) {
        std::cerr << "// ----- IR after " << snap.pass << " (" << snap.ms << " ms) -----\n" << snap.ir;
        if (!snap.ir.empty() && snap.ir.back() != '\n') std::cerr << '\n';
    }
    if (o.json) {
        std::cout << result_json(r, *emit).dump(2) << '\n';
        if (!r.ok) return r.internal_error ? kInternalError : kUserError;
    }
    if (!r.ok) return o.json ? kUserError : report_failure(r, o.remarks);
    // Warnings, and with --remarks the fast paths a pass could not take, each at its line.
    if (!r.diagnostics.empty()) std::cerr << r.render_diagnostics(use_color(), o.remarks);
    if (o.json && o.output.empty()) return kOk;

    if (*emit == tp::Stage::Cubin) {
        std::ofstream out(o.output, std::ios::binary);
        out.write(reinterpret_cast<const char*>(r.cubin.data()), static_cast<std::streamsize>(r.cubin.size()));
        if (!out) { std::fprintf(stderr, "tilec: error: cannot write `%s`\n", o.output.c_str()); return kUserError; }
        return kOk;
    }
    const std::string& text = stage_text(r, *emit);
    if (o.output.empty() || o.output == "-") {
        std::cout << text;
        if (!text.empty() && text.back() != '\n') std::cout << '\n';
    } else {
        std::ofstream out(o.output, std::ios::binary);
        out << text;
        if (!out) { std::fprintf(stderr, "tilec: error: cannot write `%s`\n", o.output.c_str()); return kUserError; }
    }
    return kOk;
}

}  // namespace

void add_compile_command(CLI::App& app, int& exit_code) {
    auto opts = std::make_shared<CompileOptions>();
    CLI::App* sub = app.add_subcommand("compile", "Compile a TileLang file to AST, IR, CUDA, PTX or cubin");
    sub->add_option("file", opts->file, "TileLang .py file")->required();
    sub->add_option("-k,--kernel", opts->kernel, "kernel factory to compile (default: the sample header's or the first)");
    sub->add_option("-D,--define", opts->defines, "factory parameter NAME=VALUE (int, float, bool, dtype, string)");
    sub->add_option("--pass-config", opts->pass_configs, "TileLang pass config KEY=VALUE, e.g. tl.disable_warp_specialized=true");
    sub->add_option("--arch", opts->arch, "target: sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a")->capture_default_str();
    sub->add_option("--emit", opts->emit, "stage to print: ast, ir, lowered, cuda, ptx, cubin")->capture_default_str();
    sub->add_option("-o,--output", opts->output, "write the stage to this file");
    sub->add_option("--print-after", opts->print_after, "print the IR after this pass (repeatable)");
    sub->add_flag("--print-after-all", opts->print_after_all, "print the IR after every pass");
    sub->add_flag("--time-passes", opts->time_passes, "print per-stage and per-pass times");
    sub->add_flag("--json", opts->json, "print a JSON report");
    sub->add_flag("--no-lineinfo", opts->no_lineinfo, "omit #line directives and -lineinfo");
    sub->add_flag("--fast-math", opts->fast_math, "compile with fast math");
    sub->add_flag("--remarks", opts->remarks, "say, at the DSL line, where a fast path (wgmma, TMA, warp specialization) was not taken and why");
    sub->callback([opts, &exit_code]() { exit_code = run_compile(*opts); });
}

}  // namespace tilec
