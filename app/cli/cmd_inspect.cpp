// `tilec inspect FILE`: per kernel and target, what the compiled code contains and how well it
// can fill an SM: counts of Tensor Core, async copy, barrier and matrix-load instructions in
// PTX and SASS (nvdisasm where present), registers, shared memory and spills (ptxas' report,
// and cuFuncGetAttribute through the worker on a GPU), and the theoretical occupancy with its
// limiter named. `--json` prints the same as one object.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <memory>

#include "cli_common.h"
#include "inspect_layout.h"
#include "inspect_pipeline.h"
#include "tileplay/inspect.h"
#include "tileplay/worker_client.h"

namespace tilec {

namespace {

using Json = nlohmann::json;

struct InspectArgs {
    std::string file, device = "auto";
    std::vector<std::string> kernels, defines, archs, worker;
    bool all_kernels = false, json = false, line_info = false;
    std::string layout;  // --layout BUF: the layout model of that buffer instead
    bool pipeline = false, pipeline_all = false;  // --pipeline: the pipeline view instead
    int grid = 16;
};

Json counts_json(const tp::InstrCounts& c) {
    Json classes = Json::object();
    for (int i = 0; i < tp::kInstrClassCount; ++i)
        classes[tp::instr_class_key(static_cast<tp::InstrClass>(i))] = {{"count", c.by_class[i]}, {"opcodes", c.opcodes[i]}};
    return {{"available", true}, {"instructions", c.instructions}, {"classes", classes}};
}

Json occupancy_json(const tp::Occupancy& o, const tp::OccupancyInput& in, const std::string& source) {
    auto lim = [](int n) { return n == INT_MAX ? Json(nullptr) : Json(n); };
    return {{"fits", o.fits},
            {"blocks_per_sm", o.blocks_per_sm},
            {"warps_per_sm", o.warps_per_sm},
            {"max_warps_per_sm", o.max_warps_per_sm},
            {"occupancy", o.occupancy},
            {"limiter", o.limiter},
            {"why", o.why},
            {"blocks_by", {{"registers", lim(o.by_registers)}, {"shared_memory", lim(o.by_shared_memory)},
                           {"threads", lim(o.by_threads)}, {"blocks_per_sm", lim(o.by_blocks)}}},
            {"inputs", {{"registers", in.registers}, {"threads_per_block", in.threads_per_block},
                        {"smem_per_block", in.smem_per_block}, {"smem_allocated_per_block", o.smem_allocated_per_block},
                        {"registers_from", source}}}};
}

// Compiles one kernel for one target and gathers everything inspect reports.
Json inspect_one(const InspectArgs& a, const std::string& source, const std::string& kernel,
                 const std::vector<std::pair<std::string, std::string>>& defs, const std::string& target,
                 tp::WorkerClient* gpu, const std::string& gpu_target, int& rc) {
    Json k = {{"kernel", kernel}, {"target", target}};
    tp::CompileRequest req = make_request(a.file, source, kernel, defs, target, false);
    req.stop_after = tp::Stage::Cubin;
    tp::CompileResult r = tp::compile(req);
    k["kernel"] = r.kernel.factory.empty() ? kernel : r.kernel.factory;
    if (!r.ok) {
        if (!a.json) std::fputs(r.render_diagnostics(use_color()).c_str(), stderr);
        rc = std::max(rc, r.internal_error ? int(kInternalError) : int(kUserError));
        k["ok"] = false;
        k["error"] = r.diagnostics.empty() ? (r.internal_error ? r.internal_error->what() : "compile failed")
                                           : r.diagnostics[0].message;
        k["kind"] = r.diagnostics.empty() ? "internal" : tp::diag_info(r.diagnostics[0].kind).name;
        return k;
    }
    k["ok"] = true;
    k["function"] = r.kernel.name;
    k["params"] = r.kernel.bound_params;
    k["grid"] = r.kernel.grid;
    k["threads"] = r.kernel.threads;
    const tp::ResourceUsage& ru = r.resources;
    k["resources"] = {{"registers", ru.registers}, {"static_shared_bytes", ru.static_shared_bytes},
                      {"dynamic_shared_bytes", ru.dynamic_shared_bytes}, {"spill_store_bytes", ru.spill_store_bytes},
                      {"spill_load_bytes", ru.spill_load_bytes}, {"stack_bytes", ru.stack_bytes}, {"from", "ptxas"}};
    // No "Used N registers" line: keep what NVRTC did say, so the report shows why.
    if (ru.registers < 0) k["resources"]["nvrtc_log"] = r.nvrtc_log.substr(0, 2000);
    k["ptx"] = counts_json(tp::count_instructions(r.ptx, tp::Isa::Ptx));
    tp::SassResult sass = tp::disassemble_cubin(r.cubin, a.line_info);
    if (sass.ok) {
        k["sass"] = counts_json(tp::count_instructions(sass.text, tp::Isa::Sass));
        k["sass"]["tool"] = sass.tool;
    } else {
        k["sass"] = {{"available", false}, {"why", sass.why}};
    }

    tp::OccupancyInput in;
    in.registers = ru.registers;
    in.smem_per_block = std::max<int64_t>(ru.static_shared_bytes, 0) + ru.dynamic_shared_bytes;
    in.threads_per_block = 1;
    for (int64_t t : r.kernel.threads) in.threads_per_block *= static_cast<int>(t);
    std::string reg_source = "ptxas";
    // On the GPU the driver's own figures for the loaded function replace ptxas' report.
    if (gpu && tp::target_runs_on(target, gpu_target)) {
        tp::LoadSpec ls;
        ls.path = a.file;
        ls.source = source;
        ls.kernel = kernel;
        ls.defines = defs;
        ls.fallback_defines = tp::parse_sample_header(source).args;
        ls.target = target;
        tp::WorkerReply lr = gpu->load(ls);
        if (lr.ok) {
            const Json& d = lr.body["kernel"];
            k["device_attributes"] = {{"registers", d.value("registers", -1)},
                                      {"static_shared_bytes", d.value("static_shared_bytes", -1)},
                                      {"local_bytes", d.value("local_bytes", -1)}, {"from", "cuFuncGetAttribute"}};
            if (d.value("registers", -1) > 0) {
                in.registers = d.value("registers", -1);
                reg_source = "cuFuncGetAttribute";
            }
        } else {
            k["device_attributes"] = {{"error", lr.error}, {"kind", lr.kind}};
        }
    }
    if (auto lim = tp::sm_limits(target)) {
        tp::Occupancy o = tp::compute_occupancy(*lim, in);
        k["occupancy"] = occupancy_json(o, in, reg_source);
    }
    return k;
}

std::string bytes_text(int64_t b) { return b < 0 ? "?" : std::to_string(b) + " B"; }

void print_kernel(const Json& k) {
    std::printf("%s  %s", k.value("kernel", "").c_str(), k.value("target", "").c_str());
    if (!k.value("ok", false)) {
        std::printf("  FAILED (%s): %s\n\n", k.value("kind", "").c_str(), k.value("error", "").c_str());
        return;
    }
    std::string params;
    for (auto it = k["params"].begin(); it != k["params"].end(); ++it)
        params += (params.empty() ? "" : " ") + it.key() + "=" + it.value().get<std::string>();
    std::printf("  %s  (%s)\n", k.value("function", "").c_str(), params.c_str());
    const Json& ru = k["resources"];
    int regs = ru.value("registers", -1);
    std::string spills = ru.value("spill_store_bytes", int64_t{-1}) == 0 && ru.value("spill_load_bytes", int64_t{-1}) == 0
                             ? "no spills"
                             : "spills " + bytes_text(ru.value("spill_store_bytes", int64_t{-1})) + " stored, " +
                                   bytes_text(ru.value("spill_load_bytes", int64_t{-1})) + " loaded";
    if (regs < 0) {
        std::string log = ru.value("nvrtc_log", "");
        std::printf("  resources (ptxas): no report in NVRTC's log (%s)\n",
                    log.empty() ? "the log is empty" : ("log: " + log.substr(0, log.find('\n'))).c_str());
    } else {
        std::printf("  resources (ptxas): %d registers, %s static + %s dynamic shared memory, %s, stack %s\n", regs,
                    bytes_text(ru.value("static_shared_bytes", int64_t{-1})).c_str(),
                    bytes_text(ru.value("dynamic_shared_bytes", int64_t{0})).c_str(), spills.c_str(),
                    bytes_text(ru.value("stack_bytes", int64_t{-1})).c_str());
    }
    if (k.contains("device_attributes")) {
        const Json& d = k["device_attributes"];
        if (d.contains("error")) std::printf("  device attributes: unavailable (%s)\n", d.value("error", "").c_str());
        else
            std::printf("  device (cuFuncGetAttribute): %d registers, %d B static shared, %d B local per thread\n",
                        d.value("registers", -1), d.value("static_shared_bytes", -1), d.value("local_bytes", -1));
    }
    const Json& ptx = k["ptx"];
    const Json& sass = k["sass"];
    bool has_sass = sass.value("available", false);
    std::printf("  %-14s %8s %8s  %s\n", "instructions", "PTX", "SASS", "opcodes");
    std::printf("  %-14s %8lld %8s\n", "total", static_cast<long long>(ptx.value("instructions", int64_t{0})),
                has_sass ? std::to_string(sass.value("instructions", int64_t{0})).c_str() : "-");
    for (int i = 0; i < tp::kInstrClassCount; ++i) {
        auto cls = static_cast<tp::InstrClass>(i);
        const char* key = tp::instr_class_key(cls);
        const Json& pc = ptx["classes"][key];
        std::string ops;
        for (const Json* src : {&pc, has_sass ? &sass["classes"][key] : nullptr}) {
            if (!src) continue;
            for (auto it = (*src)["opcodes"].begin(); it != (*src)["opcodes"].end(); ++it)
                ops += (ops.empty() ? "" : ", ") + it.key() + " " + std::to_string(it.value().get<int64_t>());
        }
        std::printf("  %-14s %8lld %8s  %s\n", tp::instr_class_name(cls), static_cast<long long>(pc.value("count", int64_t{0})),
                    has_sass ? std::to_string(sass["classes"][key].value("count", int64_t{0})).c_str() : "-", ops.c_str());
    }
    if (!has_sass) std::printf("  SASS: unavailable: %s\n", sass.value("why", "").c_str());
    if (k.contains("occupancy")) {
        const Json& o = k["occupancy"];
        auto by = [&](const char* n) {
            return o["blocks_by"][n].is_null() ? std::string("-") : std::to_string(o["blocks_by"][n].get<int>());
        };
        if (o.value("fits", false))
            std::printf("  occupancy: %d blocks/SM, %d of %d warps (%.0f%%), limited by %s  [blocks by registers %s, "
                        "shared memory %s, threads %s, block limit %s]\n",
                        o.value("blocks_per_sm", 0), o.value("warps_per_sm", 0), o.value("max_warps_per_sm", 0),
                        100 * o.value("occupancy", 0.0), o.value("limiter", "").c_str(), by("registers").c_str(),
                        by("shared_memory").c_str(), by("threads").c_str(), by("blocks_per_sm").c_str());
        else
            std::printf("  occupancy: no block fits: %s\n", o.value("why", "").c_str());
    }
    std::printf("\n");
}

std::vector<std::string> split_targets(const std::vector<std::string>& raw) {
    std::vector<std::string> out;
    for (const auto& r : raw) {
        size_t b = 0;
        while (b <= r.size()) {
            size_t e = r.find(',', b);
            if (e == std::string::npos) e = r.size();
            std::string t = r.substr(b, e - b);
            if (t == "all") out.insert(out.end(), tp::supported_targets().begin(), tp::supported_targets().end());
            else if (!t.empty()) out.push_back(t);
            b = e + 1;
        }
    }
    return out;
}

// --layout: one kernel on one target (sm_80 unless --arch/--target names one), no GPU needed.
int run_layout(const InspectArgs& a, const std::string& source, const std::vector<std::pair<std::string, std::string>>& defs) {
    std::vector<std::string> targets = split_targets(a.archs);
    if (targets.size() > 1 || a.kernels.size() > 1 || a.all_kernels) {
        std::fprintf(stderr, "tilec inspect: error: --layout takes one kernel and one target\n");
        return kUsage;
    }
    LayoutArgs l;
    l.file = a.file;
    l.kernel = a.kernels.empty() ? "" : a.kernels[0];
    l.buffer = a.layout;
    l.target = targets.empty() || targets[0] == "auto" ? "sm_80" : targets[0];
    l.defines = defs;
    l.json = a.json;
    l.grid_rows = l.grid_cols = a.grid;
    if (!tp::sm_limits(l.target)) {
        std::fprintf(stderr, "tilec inspect: error: unknown target `%s`\n", l.target.c_str());
        return kUsage;
    }
    return run_inspect_layout(l, source);
}

// --pipeline: one kernel on one target, like --layout.
int run_pipeline_view(const InspectArgs& a, const std::string& source, const std::vector<std::pair<std::string, std::string>>& defs) {
    std::vector<std::string> targets = split_targets(a.archs);
    if (targets.size() > 1 || a.kernels.size() > 1 || a.all_kernels) {
        std::fprintf(stderr, "tilec inspect: error: --pipeline takes one kernel and one target\n");
        return kUsage;
    }
    PipelineArgs p;
    p.file = a.file;
    p.kernel = a.kernels.empty() ? "" : a.kernels[0];
    p.target = targets.empty() || targets[0] == "auto" ? "sm_80" : targets[0];
    p.defines = defs;
    p.json = a.json;
    p.all = a.pipeline_all;
    if (!tp::sm_limits(p.target)) {
        std::fprintf(stderr, "tilec inspect: error: unknown target `%s`\n", p.target.c_str());
        return kUsage;
    }
    return run_inspect_pipeline(p, source);
}

int run_inspect(const InspectArgs& a) {
    std::string source;
    if (!read_file(a.file, source)) return kUserError;
    std::vector<std::pair<std::string, std::string>> defs;
    if (!parse_defines(a.defines, defs)) return kUsage;

    if (a.pipeline) return run_pipeline_view(a, source, defs);  // no GPU needed
    std::unique_ptr<tp::WorkerClient> gpu;
    std::string gpu_target, device_text = "no GPU used";
    if (a.device != "cpu") {
        std::vector<tp::WorkerOptions> wo;
        if (!workers_from_specs(a.worker, {}, wo, "inspect")) return kUsage;
        auto c = std::make_unique<tp::WorkerClient>(wo[0]);
        tp::WorkerReply hello = c->hello();
        if (!hello.ok && wo[0].where != "local") {
            std::fprintf(stderr, "tilec inspect: error: %s\n", hello.error.c_str());
            return kUserError;
        }
        if (hello.ok && !hello.body["device"].is_null()) {
            gpu_target = hello.body["device"].value("target", "");
            device_text = hello.body["device"].value("name", "gpu") + " (" + gpu_target + ")";
            gpu = std::move(c);
        } else if (a.device == "gpu") {
            std::fprintf(stderr, "tilec inspect: error: no CUDA device: %s\n",
                         (hello.ok ? hello.body.value("why", "") : hello.error).c_str());
            return kUserError;
        }
    }
    if (!a.layout.empty()) return run_layout(a, source, defs);
    std::vector<std::string> targets = split_targets(a.archs);
    if (targets.empty() || (targets.size() == 1 && targets[0] == "auto")) targets = {gpu ? gpu_target : "sm_90"};
    for (const auto& t : targets)
        if (!tp::sm_limits(t)) {
            std::string all;
            for (const auto& s : tp::supported_targets()) all += (all.empty() ? "" : ", ") + s;
            std::fprintf(stderr, "tilec inspect: error: unknown target `%s`; use one of %s, or all\n", t.c_str(), all.c_str());
            return kUsage;
        }
    std::vector<std::string> kernels = a.kernels;
    if (a.all_kernels) {
        for (const auto& f : tp::list_factories(a.file, source)) kernels.push_back(f.name);
    }
    if (kernels.empty()) kernels.push_back("");  // the header's kernel, else the file's first

    int rc = kOk;
    Json all = Json::array();
    if (!a.json) std::printf("inspect %s on %s\n\n", a.file.c_str(), device_text.c_str());
    for (const auto& kernel : kernels)
        for (const auto& t : targets) {
            Json k = inspect_one(a, source, kernel, defs, t, gpu.get(), gpu_target, rc);
            if (!a.json) print_kernel(k);
            std::fflush(stdout);
            all.push_back(std::move(k));
        }
    if (gpu) gpu->shutdown();
    if (a.json) std::printf("%s\n", Json{{"file", a.file}, {"device", device_text}, {"kernels", all}}.dump(2).c_str());
    return rc;
}

}  // namespace

void add_inspect_command(CLI::App& app, int& exit_code) {
    auto a = std::make_shared<InspectArgs>();
    auto* cmd = app.add_subcommand("inspect", "Count Tensor Core, async copy, barrier and ldmatrix instructions; resources and occupancy");
    cmd->add_option("file", a->file, "TileLang .py file")->required();
    cmd->add_option("-k,--kernel", a->kernels, "kernel factory (repeatable; default: the sample header's or the first)");
    cmd->add_flag("--all-kernels", a->all_kernels, "inspect every kernel factory in the file");
    cmd->add_option("-D,--define", a->defines, "factory parameter NAME=VALUE (defaults: the header's args)");
    cmd->add_option("--arch,--target", a->archs, "targets, comma-separated or repeated; `all`; auto: the GPU's, else sm_90");
    cmd->add_option("--device", a->device, "gpu: also read cuFuncGetAttribute through the worker; cpu: never start it")
        ->check(CLI::IsMember({"cpu", "gpu", "auto"}))
        ->capture_default_str();
    add_worker_option(cmd, a->worker, false);
    cmd->add_flag("-g,--line-info", a->line_info, "disassemble SASS with line info (nvdisasm -g)");
    cmd->add_flag("--json", a->json, "print one JSON object");
    cmd->add_option("--layout", a->layout,
                    "BUF: which thread and register holds each element of fragment BUF, or the swizzle, banks and "
                    "bank conflicts per access of shared BUF (one kernel, one target; default sm_80)");
    cmd->add_flag("--pipeline", a->pipeline,
                  "what each warp role does before, in and after every T.Pipelined loop and where it waits "
                  "(one kernel, one target; default sm_80)");
    cmd->add_flag("--pipeline-all", a->pipeline_all, "with --pipeline: also the scalar bookkeeping (ring slots, phases)");
    cmd->add_option("--grid", a->grid, "with --layout: rows and columns of the grid printed as text")->capture_default_str();
    cmd->callback([a, &exit_code] { exit_code = run_inspect(*a); });
}

}  // namespace tilec
