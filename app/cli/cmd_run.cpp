// `tilec run`: runs a kernel on the CPU interpreter (or on the GPU through `tilec worker`),
// with seeded or loaded inputs, .npy outputs, per-output stats and `--check` against the C++
// reference of the sample's named baseline.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli_common.h"
#include "timeline_file.h"
#include "tileplay/doctor.h"
#include "tileplay/interp.h"
#include "tileplay/tensor_stats.h"
#include "tileplay/worker_client.h"

namespace tilec {

namespace {

struct RunOptions {
    std::string file, kernel, device = "auto", arch = "auto", save_inputs, load_inputs, save_outputs;
    std::string timeline;  // --timeline FILE: the Chrome trace of the stamped pipeline events (GPU)
    std::vector<std::string> defines, pass_configs, worker;
    uint64_t seed = 0;
    int threads = 0;
    double timeout = 0;  // 0: the defaults below
    bool check = false, json = false, check_races = false;
};

// Watchdog defaults: a GPU kernel that is silent this long is hung; the CPU interpreter runs
// the same kernel orders of magnitude slower, so it gets longer.
constexpr double kGpuTimeoutS = 10, kCpuTimeoutS = 300;

using nlohmann::json;

bool gpu_present(std::string& why) {
    for (const auto& l : tp::doctor_report(false))
        if (l.item.rfind("gpu", 0) == 0) {
            if (l.ok) return true;
            why = l.text;
        }
    if (why.empty()) why = "no CUDA device";
    return false;
}

std::string fmt(double v) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v);
    return b;
}

// Integer values of -D and the header's cpu-args, for symbolic dims and scalar parameters.
std::map<std::string, int64_t> int_symbols(const std::vector<std::pair<std::string, std::string>>& defs,
                                           const tp::SampleHeader& h) {
    std::map<std::string, int64_t> m;
    auto take = [&](const std::vector<std::pair<std::string, std::string>>& v) {
        for (const auto& [k, val] : v) {
            try {
                size_t pos = 0;
                long long x = std::stoll(val, &pos);
                if (pos == val.size() && !m.count(k)) m[k] = x;
            } catch (...) {
            }
        }
    };
    take(defs);
    take(h.cpu_args);
    return m;
}

// The worker the run goes through: local, or where --worker says, with the GPU's watchdog.
bool worker_for(const RunOptions& o, tp::WorkerOptions& wo) {
    std::vector<tp::WorkerOptions> one;
    tp::WorkerOptions base;
    base.watchdog_s = o.timeout > 0 ? o.timeout : kGpuTimeoutS;
    if (!workers_from_specs(o.worker, base, one, "run")) return false;
    wo = one[0];
    return true;
}

// The kernel as a worker loads it: source and defines travel, so a worker on another host needs
// no copy of the file.
tp::LoadSpec load_spec_of(const RunOptions& o, const std::string& source, const std::vector<std::pair<std::string, std::string>>& defs,
                          const tp::SampleHeader& h) {
    tp::LoadSpec ls;
    ls.path = o.file;
    ls.source = source;
    ls.kernel = o.kernel.empty() ? h.kernel : o.kernel;
    ls.defines = defs;
    ls.target = o.arch;
    return ls;
}

tp::RunSpec run_spec_of(const RunOptions& o) {
    tp::RunSpec rs;
    rs.inputs_dir = o.load_inputs;
    rs.outputs_dir = o.save_outputs;
    rs.seed = o.seed;
    rs.check = o.check;
    return rs;
}

int run_gpu(const RunOptions& o, const std::string& source, const std::vector<std::pair<std::string, std::string>>& defs, const tp::SampleHeader& h,
            const std::string& reason) {
    tp::WorkerOptions wo;
    if (!worker_for(o, wo)) return kUsage;
    tp::WorkerClient client(wo);
    tp::LoadSpec ls = load_spec_of(o, source, defs, h);
    ls.fallback_defines = h.args;
    parse_defines(o.pass_configs, ls.pass_configs, true);
    if (!o.timeline.empty()) ls.pass_configs.emplace_back(kTimelineConfig, "true");
    tp::WorkerReply lr = client.load(ls);
    if (!lr.ok) {
        if (tp::worker_died(lr.kind))
            std::cerr << "tilec run: " << lr.error << "\n";
        else
            std::cerr << "tilec run: the GPU worker could not load the kernel (" << lr.kind << "): " << lr.error << "\n";
        return kUserError;
    }
    tp::RunSpec rs = run_spec_of(o);
    tp::WorkerReply rr = client.run(rs);
    json j = {{"device", "gpu"}, {"device_reason", reason}, {"ok", rr.ok}, {"load", lr.body}, {"run", rr.body}};
    if (!rr.ok) j["error"] = rr.error;
    bool check_ok = !o.check || (rr.body.is_object() && rr.body.contains("check") && rr.body["check"].value("ok", false));
    if (o.json) {
        std::cout << j.dump() << "\n";
    } else {
        // T.print output first, as on the CPU, where it appears while the kernel runs.
        if (rr.body.is_object() && rr.body.contains("printed")) std::cout << rr.body["printed"].get<std::string>();
        std::cout << "device: gpu (" << reason << ")\n";
        if (!rr.ok) std::cerr << "tilec run: GPU run failed (" << rr.kind << "): " << rr.error << "\n";
        else std::cout << "time: " << fmt(rr.body.value("wall_ms", 0.0)) << " ms (GPU, wall clock incl. sync)\n";
        if (o.check && rr.body.contains("check")) std::cout << "check (vs CPU interpreter): " << rr.body["check"].dump() << "\n";
    }
    bool timeline_ok = true;
    if (!o.timeline.empty() && rr.ok) {
        std::string msg;
        timeline_ok = write_timeline(rr, o.timeline, msg);
        std::cerr << (timeline_ok ? "" : "tilec run: no timeline: ") << msg << "\n";
    }
    client.shutdown();
    return rr.ok && check_ok && timeline_ok ? kOk : kUserError;
}

// "output C: float16[256, 256] mean=... rms=..." from tensor_stats: the same line for a local
// run and one through a worker.
void print_output_line(const std::string& name, const json& s) {
    std::cout << "output " << name << ": " << s["dtype"].get<std::string>() << '[';
    const json& shape = s["shape"];
    for (size_t i = 0; i < shape.size(); ++i) std::cout << (i ? ", " : "") << shape[i].get<int64_t>();
    std::cout << "] mean=" << fmt(s["mean"]) << " rms=" << fmt(s["rms"]) << " min=" << fmt(s["min"]) << " max=" << fmt(s["max"]);
    if (s["nonfinite"].get<int64_t>()) std::cout << " nonfinite=" << s["nonfinite"].get<int64_t>();
    std::cout << "\n";
}

// A CPU run in a worker (--worker with --device cpu): the kernel travels as source and
// defines, the worker compiles, runs and checks it, and the reply's summary is printed as a
// local run prints its own.
int run_cpu_worker(const RunOptions& o, const std::string& source, const std::vector<std::pair<std::string, std::string>>& defs,
                   const tp::SampleHeader& h, tp::WorkerOptions wo) {
    wo.watchdog_s = std::max(wo.watchdog_s, 30.0);  // heartbeats arrive every second; a long JIT compile may not
    tp::WorkerClient client(wo);
    tp::LoadSpec ls = load_spec_of(o, source, defs, h);
    ls.fallback_defines = h.cpu_args;  // CPU sizes first, as a local CPU run takes them
    ls.fallback_defines.insert(ls.fallback_defines.end(), h.args.begin(), h.args.end());
    ls.device = "cpu";
    tp::WorkerReply lr = client.load(ls);
    if (!lr.ok) {
        if (lr.body.is_object() && lr.body.contains("diagnostics")) std::cerr << lr.body["diagnostics"].get<std::string>();
        if (tp::worker_died(lr.kind))
            std::cerr << "tilec run: " << lr.error << "\n";  // it says where and why
        else
            std::cerr << "tilec run: the worker" << (wo.where == "local" ? "" : " at " + wo.where) << " could not load the kernel (" << lr.kind
                      << "): " << lr.error << "\n";
        return kUserError;
    }
    tp::RunSpec rs = run_spec_of(o);
    rs.check_races = o.check_races;
    if (o.device == "cpu-interp") rs.engine = "cpu-interp";
    rs.scalars = int_symbols(defs, h);
    tp::WorkerReply rr = client.run(rs);
    client.shutdown();
    const json& b = rr.body.is_object() ? rr.body : json::object();
    const json check = b.value("check", json());
    bool check_ok = !o.check || (check.is_object() && check.value("ok", false));
    bool raced = o.check_races && b.contains("races") && !b["races"].value("findings", json::array()).empty();
    int rc = rr.ok && check_ok && !raced ? kOk : kUserError;
    if (o.json) {
        json j = {{"device", "cpu"}, {"worker", wo.where}, {"ok", rc == kOk},
                  {"load", lr.body}, {"run", rr.body},     {"outputs", b.value("outputs", json::object())}};
        if (!rr.ok) j["error"] = rr.error;
        std::cout << j.dump() << "\n";
        return rc;
    }
    if (b.contains("printed")) std::cout << b["printed"].get<std::string>();
    std::cout << "device: cpu (worker " << wo.where << ")\n";
    if (!rr.ok) {
        std::cerr << "tilec run: the run failed (" << rr.kind << "): " << rr.error << "\n";
        return kUserError;
    }
    std::cout << "cpu: " << b.value("engine", std::string("?")) << "\n";
    const json k = lr.body.value("kernel", json::object());
    std::string problem;
    const json bound = k.value("bound_params", json::object()), outs = b.value("outputs", json::object());
    for (const auto& [name, v] : bound.items()) problem += (problem.empty() ? "" : " ") + name + "=" + v.get<std::string>();
    std::cout << "kernel: " << k.value("factory", std::string("?")) << "  problem: " << (problem.empty() ? "(no parameters)" : problem) << "\n";
    for (const auto& [name, st] : outs.items()) print_output_line(name, st);
    std::cout << "time: " << b.value("note", std::string()) << "\n";
    const json findings = o.check_races && b.contains("races") ? b["races"].value("findings", json::array()) : json::array();
    for (const auto& f : findings)
        std::cerr << o.file << ":" << f.value("line", 0) << ":" << f.value("col", 0) << ": " << f.value("message", "") << "\n";
    if (o.check && check.is_object() && check.contains("outputs") && !check["outputs"].empty()) {
        const json& c = check["outputs"][0];
        std::string against = check.value("against", std::string());
        if (against.rfind("cpu reference: ", 0) == 0) against = against.substr(15);
        std::cout << "check: " << against << " on `" << c.value("name", "") << "` rel_fro=" << tp::format_sci(c.value("rel_fro", 0.0))
                  << " max_abs=" << tp::format_sci(c.value("max_abs", 0.0)) << " tol=" << tp::format_sci(c.value("tol", 0.0))
                  << (c.value("pass", false) ? " PASS" : " FAIL") << "\n";
    } else if (o.check) {
        std::cout << "check: no reference for this kernel\n";
    }
    return rc;
}

// --worker: the worker decides what `auto` means (its GPU, else its CPU), not this machine.
int run_via_worker(const RunOptions& o, const std::string& source, const std::vector<std::pair<std::string, std::string>>& defs,
                   const tp::SampleHeader& h) {
    tp::WorkerOptions wo;
    if (!worker_for(o, wo)) return kUsage;
    bool cpu = o.device == "cpu" || o.device == "cpu-interp" || o.check_races;
    if (o.device == "auto" && !cpu) {
        tp::WorkerClient probe(wo);
        tp::WorkerReply hello = probe.hello();
        if (!hello.ok) {
            std::cerr << "tilec run: " << hello.error << "\n";
            return kUserError;
        }
        cpu = hello.body["device"].is_null();
    }
    if (cpu) return run_cpu_worker(o, source, defs, h, wo);
    return run_gpu(o, source, defs, h, "worker " + wo.where);
}

int run_cmd(const RunOptions& o) {
    std::string source;
    if (!read_file(o.file, source)) return kUserError;
    std::vector<std::pair<std::string, std::string>> defs;
    if (!parse_defines(o.defines, defs)) return kUsage;
    tp::SampleHeader h = tp::parse_sample_header(source);
    std::string reason;
    if (o.check_races && o.device == "gpu") {
        std::cerr << "tilec run: --check-races runs on the CPU interpreter; use --device cpu (or auto)\n";
        return kUsage;
    }
    if (!o.timeline.empty() && (o.device == "cpu" || o.device == "cpu-interp" || o.check_races)) {
        std::cerr << "tilec run: --timeline reads %globaltimer stamps on the GPU; use --device gpu (or auto on a machine with one)\n";
        return kUsage;
    }
    if (!o.worker.empty()) return run_via_worker(o, source, defs, h);
    if (o.check_races) {
        reason = o.device == "cpu" || o.device == "cpu-interp" ? "requested" : "--check-races runs on the CPU interpreter";
    } else if (o.device == "gpu") {
        return run_gpu(o, source, defs, h, "requested");
    } else if (o.device == "cpu-interp") {
        reason = "requested, interpreter";
    } else if (o.device == "auto") {
        std::string why;
        if (gpu_present(why)) return run_gpu(o, source, defs, h, "auto: CUDA device found");
        if (!o.timeline.empty()) {
            std::cerr << "tilec run: --timeline needs a GPU: " << why << "\n";
            return kUserError;
        }
        reason = "no CUDA device";
    } else {
        reason = "requested";
    }

    // The interpreter runs the traced IR; the target only sets the limits it is checked against.
    tp::CompileRequest req = make_request(o.file, source, o.kernel, defs, o.arch == "auto" ? "sm_90a" : o.arch, true);
    req.stop_after = tp::Stage::Ir;
    tp::CompileResult r = tp::compile(req);
    if (!r.ok || !r.func) return report_failure(r);
    const tp::ir::PrimFunc& f = *r.func;

    std::map<std::string, tp::HostTensor> args;
    std::string err;
    std::vector<std::string> input_notes;
    if (!tp::allocate_args(f, o.seed, int_symbols(defs, h), args, &err, nullptr, &input_notes)) {
        std::cerr << "tilec run: " << err << "\n";
        return kUserError;
    }
    for (const auto& n : input_notes) std::cerr << "note: input " << n << "\n";
    std::vector<std::string> loaded;
    // Parameters as the compile result lists them (the IR types stay inside core).
    const std::vector<tp::TensorParamInfo>& params = r.kernel.params;
    for (const auto& p : params) {
        if (p.is_scalar || p.is_output || o.load_inputs.empty()) continue;
        std::string path = o.load_inputs + "/" + p.name + ".npy";
        if (!std::filesystem::exists(path)) continue;
        tp::HostTensor& t = args[p.name];
        if (!tp::load_npy_as(path, t.dtype, std::vector<int64_t>(t.shape), t, &err)) {
            std::cerr << "tilec run: " << err << "\n";
            return kUserError;
        }
        loaded.push_back(p.name);
    }
    auto save = [&](const std::string& dir, bool outputs) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        for (const auto& p : params) {
            if (p.is_scalar || p.is_output != outputs) continue;
            if (!tp::write_npy(dir + "/" + p.name + ".npy", args[p.name], &err)) {
                std::cerr << "tilec run: " << err << "\n";
                return false;
            }
        }
        return true;
    };
    if (!o.save_inputs.empty() && !save(o.save_inputs, false)) return kUserError;

    tp::InterpOptions io;
    io.threads = o.threads;
    io.source_path = r.file->path();
    io.watchdog_s = o.timeout > 0 ? o.timeout : kCpuTimeoutS;
    std::string printed;
    if (o.json) io.print_sink = [&](const std::string& s) { printed += s; };
    io.check_races = o.check_races;
    // The LLVM JIT where it is built and takes the kernel; the interpreter when asked for, for
    // the race checker, and for whatever the JIT does not lower (the note says why).
    io.engine = o.device == "cpu-interp" ? tp::CpuEngine::Interpreter : tp::CpuEngine::Auto;
    if (const char* c = std::getenv("TILEPLAY_JIT_CHECKS"); c && std::string(c) == "0") io.jit_checked = false;
    tp::InterpReport rep = tp::run_on_cpu(f, args, io);
    const std::string engine_line = rep.engine == "interpreter" && !rep.jit_note.empty()
                                        ? "cpu: interpreter (JIT: " + rep.jit_note + ")"
                                        : "cpu: " + rep.engine + (rep.jit_compile_ms > 0 ? " (JIT compile " + fmt(rep.jit_compile_ms) + " ms)" : "");
    // Race findings come first: a run the checker stopped (a wait that cannot complete) may
    // have found races before it.
    const bool raced = o.check_races && !rep.races.empty();
    json races_json;
    if (o.check_races) {
        json rs = json::array();
        for (const auto& d : rep.races)
            rs.push_back({{"kind", tp::diag_info(d.kind).name},
                          {"message", d.message},
                          {"line", d.span.begin.line},
                          {"col", d.span.begin.col},
                          {"other_line", d.notes.empty() ? 0u : d.notes[0].span.begin.line},
                          {"other_col", d.notes.empty() ? 0u : d.notes[0].span.begin.col}});
        races_json = {{"scope", rep.races_scope}, {"findings", rs}};
        if (!o.json) {
            std::cerr << tp::render_diagnostics(rep.races, r.file.get(), use_color());
            std::cerr << "race check: " << rep.races.size() << " finding(s) in " << rep.blocks_run << " block(s); checked " << rep.races_scope
                      << "\n";
        }
    }
    json j = {{"device", "cpu"}, {"device_reason", reason}, {"kernel", r.kernel.factory}, {"grid", rep.grid},
              {"threads", r.kernel.threads}, {"problem", r.kernel.bound_params}, {"time_ms", rep.ms},
              {"time_label", "cpu interpreter"}, {"cpu_threads", rep.threads_used}, {"seed", o.seed}, {"loaded_inputs", loaded}};
    // Which engine ran it: "jit", "interpreter" or "jit+interpreter", and why not the JIT.
    j["engine"] = rep.engine, j["jit_note"] = rep.jit_note, j["jit_compile_ms"] = rep.jit_compile_ms;
    if (rep.engine != "interpreter") j["time_label"] = "cpu " + rep.engine;
    if (o.check_races) j["races"] = races_json;
    if (r.kernel.launch_count() > 1) j["launches"] = r.kernel.launch_count();
    if (!rep.ok) {
        std::string msg = rep.error.empty() ? tp::render_diagnostics(rep.diagnostics, r.file.get(), use_color() && !o.json) : "tilec run: " + rep.error + "\n";
        if (o.json) {
            j["ok"] = false;
            j["error"] = msg;
            std::cout << j.dump() << "\n";
        } else {
            std::cout << "device: cpu (" << reason << ")\n";
            std::cout << engine_line << "\n";
            std::cerr << msg;
        }
        return kUserError;
    }
    if (!o.save_outputs.empty() && !save(o.save_outputs, true)) return kUserError;
    // A run that went through may still not be the GPU's: say so at the line (thread indices).
    if (!rep.warnings.empty()) {
        json w = json::array();
        for (const auto& d : rep.warnings) w.push_back(d.message);
        j["warnings"] = w;
        if (!o.json) std::cerr << tp::render_diagnostics(rep.warnings, r.file.get(), use_color());
    }

    json outs = json::object();
    for (const auto& p : params)
        if (!p.is_scalar && p.is_output) outs[p.name] = tp::tensor_stats(args[p.name]);
    j["outputs"] = outs;
    int rc = raced ? kUserError : kOk;
    if (o.check) {
        tp::ReferenceResult ref = tp::cpu_reference(h.baselines, f, args);
        if (!ref.available) {
            j["check"] = {{"available", false}, {"error", ref.error}, {"pass", false}};
            rc = kUserError;
        } else {
            tp::CompareResult c = tp::compare_tensors(args[ref.output], ref.expected);
            j["check"] = {{"available", true}, {"reference", ref.name}, {"output", ref.output}, {"rel_fro", c.rel_fro},
                          {"max_abs", c.max_abs}, {"tol", c.tol}, {"nonfinite", c.nonfinite}, {"pass", c.pass}};
            if (!c.pass) rc = kUserError;
        }
    }
    j["ok"] = rc == kOk;
    if (o.json) {
        if (!printed.empty()) j["printed"] = printed;
        std::cout << j.dump() << "\n";
        return rc;
    }
    std::cout << "device: cpu (" << reason << ")\n";
    std::cout << engine_line << "\n";
    std::cout << "kernel: " << r.kernel.factory << "  grid (" << rep.grid[0] << ", " << rep.grid[1] << ", " << rep.grid[2] << ")";
    // The grid above is the first launch's; the block count below covers every launch.
    if (r.kernel.launch_count() > 1) std::cout << "  launches: " << r.kernel.launch_count();
    std::string problem;
    for (const auto& [k, v] : r.kernel.bound_params) problem += (problem.empty() ? "" : " ") + k + "=" + v;
    std::cout << "  problem: " << (problem.empty() ? "(no parameters)" : problem) << "\n";
    if (!loaded.empty()) std::cout << "inputs: loaded " << loaded.size() << " from " << o.load_inputs << ", others seeded (seed " << o.seed << ")\n";
    else std::cout << "inputs: random, seed " << o.seed << "\n";
    for (auto& [name, s] : outs.items()) print_output_line(name, s);
    std::cout << "time: " << fmt(rep.ms) << " ms (" << (rep.engine == "interpreter" ? "CPU interpreter" : "CPU " + rep.engine) << ", "
              << rep.threads_used << " thread(s), " << rep.blocks_run << " blocks)\n";
    if (o.check) {
        const json& c = j["check"];
        if (!c["available"].get<bool>()) {
            std::cout << "check: no reference for this kernel (" << c["error"].get<std::string>() << ")\n";
        } else {
            std::cout << "check: " << c["reference"].get<std::string>() << " on `" << c["output"].get<std::string>()
                      << "` rel_fro=" << tp::format_sci(c["rel_fro"]) << " max_abs=" << tp::format_sci(c["max_abs"])
                      << " tol=" << tp::format_sci(c["tol"]);
            if (c["nonfinite"].get<int64_t>()) std::cout << " nonfinite=" << c["nonfinite"].get<int64_t>();
            std::cout << (c["pass"].get<bool>() ? " PASS" : " FAIL") << "\n";
        }
    }
    return rc;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
    auto o = std::make_shared<RunOptions>();
    CLI::App* sub = app.add_subcommand("run", "Run a kernel on the CPU interpreter or the GPU, with --check against a reference");
    sub->add_option("file", o->file, "TileLang .py file")->required();
    sub->add_option("-k,--kernel", o->kernel, "kernel factory (default: the sample header's or the first)");
    sub->add_option("-D,--define", o->defines, "factory parameter NAME=VALUE (defaults: the header's cpu-args / args)");
    sub->add_option("--pass-config", o->pass_configs, "TileLang pass config KEY=VALUE, e.g. tl.disable_warp_specialized=true");
    sub->add_option("--device", o->device,
                    "cpu (the LLVM JIT where built, else the interpreter), cpu-interp (the interpreter), gpu or auto (GPU when there is one)")
        ->check(CLI::IsMember({"cpu", "cpu-interp", "gpu", "auto"}))
        ->capture_default_str();
    sub->add_option("--arch", o->arch, "target (auto: the GPU's, sm_90a on Hopper; sm_90a without a GPU)")
        ->check(CLI::IsMember([] {
            std::vector<std::string> t = tp::supported_targets();
            t.push_back("auto");
            return t;
        }()))
        ->capture_default_str();
    sub->add_option("--seed", o->seed, "seed of the random inputs")->capture_default_str();
    sub->add_option("--threads", o->threads, "CPU threads for blocks (0 = all cores)");
    sub->add_option("--timeout", o->timeout, "watchdog: seconds the kernel may run (default 10 on the GPU, 300 on the CPU interpreter)")
        ->check(CLI::PositiveNumber);
    sub->add_flag("--check", o->check, "compare with the C++ reference of the sample's baseline; exit 1 when it fails");
    sub->add_flag("--check-races", o->check_races,
                  "CPU interpreter: report shared-memory races, reads of async copies not waited for and mbarrier phases that "
                  "cannot complete; exit 1 when it finds any");
    sub->add_option("--save-inputs", o->save_inputs, "write inputs as DIR/<param>.npy");
    sub->add_option("--load-inputs", o->load_inputs, "read inputs from DIR/<param>.npy where present");
    sub->add_option("--save-outputs", o->save_outputs, "write outputs as DIR/<param>.npy");
    sub->add_option("--timeline", o->timeline,
                    "GPU: stamp the pipeline events (pass config tp.timeline=true) and write their Chrome trace to FILE "
                    "(one process per SM, one thread per sampled block and warp role)");
    sub->add_flag("--json", o->json, "print one JSON object");
    add_worker_option(sub, o->worker, false);
    sub->callback([o, &exit_code]() { exit_code = run_cmd(*o); });
}

}  // namespace tilec
