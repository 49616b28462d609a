// `tilec sweep FILE -D block_M=64,128 -D num_stages=2,3 ...`: every combination of the listed
// values is compiled, checked and (on a GPU) timed; the table is sorted by time with the best
// passing config marked. Without a GPU each config is checked on the CPU interpreter at the
// sample's cpu-args (correctness only). A config that fails to compile, faults or hangs is a
// row with its reason; the sweep carries on. Configs spread across a pool of workers (--workers
// N local ones, one per GPU by default; --worker ssh://HOST for each remote one); a worker
// that dies hands its config to another.
#include <algorithm>
#include <optional>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli_common.h"
#include "tileplay/interp.h"
#include "tileplay/tune.h"
#include "tileplay/worker_client.h"
#include "tileplay/worker_pool.h"

namespace tilec {

namespace {

using Json = nlohmann::json;

struct SweepArgs {
    std::string file, kernel, arch = "auto", device = "auto", csv;
    std::vector<std::string> defines, baselines, worker;
    bool json = false;
    int iters = 30, warmup = 5, check_blocks = 16, workers = 0;
    double timeout = 10;
};

// Configs, their text and the product of -D axes are the tuner's (tileplay/tune.h): a sweep
// is an exhaustive tune without the filter, so both name and order configs the same way.
using Config = tp::TuneConfig;
using tp::config_text;

std::map<std::string, double> numeric_params(const Json& bound) { return tp::formula_values(bound.get<std::map<std::string, std::string>>()); }

// CPU: compile at cpu-args, run on the interpreter, compare with the named reference.
Json check_on_cpu(const SweepArgs& a, const std::string& source, const tp::SampleHeader& h, const Config& c) {
    Json rec = {{"config", config_text(c)}, {"device", "cpu"}};
    tp::CompileRequest req = make_request(a.file, source, a.kernel, c, a.arch == "auto" ? "sm_90a" : a.arch, true);
    req.stop_after = tp::Stage::Cuda;  // the lowering must succeed too, not just the trace
    tp::CompileResult r = tp::compile(req);
    if (!r.ok || !r.func) {
        rec["error"] = r.diagnostics.empty() ? "compile failed" : r.diagnostics[0].message;
        rec["kind"] = r.diagnostics.empty() ? "compile_failed" : tp::diag_info(r.diagnostics[0].kind).name;
        return rec;
    }
    std::map<std::string, tp::HostTensor> args;
    std::string err;
    if (!tp::allocate_args(*r.func, 0, {}, args, &err)) {
        rec["error"] = err;
        rec["kind"] = "bad_args";
        return rec;
    }
    tp::InterpOptions io;
    io.source_path = a.file;
    io.print_sink = [](const std::string&) {};
    io.engine = tp::CpuEngine::Auto;
    tp::InterpReport rep = tp::run_on_cpu(*r.func, args, io);
    if (!rep.ok) {
        rec["error"] = rep.error.empty() && !rep.diagnostics.empty() ? rep.diagnostics[0].message : rep.error;
        rec["kind"] = "run_failed";
        return rec;
    }
    rec["cpu_ms"] = rep.ms;
    tp::ReferenceResult ref = tp::cpu_reference(h.baselines, *r.func, args);
    if (ref.available) {
        tp::CompareResult cmp = tp::compare_tensors(args[ref.output], ref.expected);
        rec["check"] = {{"ok", cmp.pass}, {"rel_fro", cmp.rel_fro}, {"max_abs", cmp.max_abs}, {"tol", cmp.tol}};
    } else {
        rec["check"] = {{"ok", false}, {"error", ref.error}};
    }
    return rec;
}

// CPU in a pool's worker: the same lowering check here (cheap, no NVRTC), then the run and the
// reference check in the worker, which reports them in the shape check_on_cpu gives.
Json check_in_worker(tp::WorkerClient& client, const SweepArgs& a, const std::string& source, const tp::SampleHeader& h, const Config& c) {
    Json rec = {{"config", config_text(c)}, {"device", "cpu"}};
    tp::CompileRequest req = make_request(a.file, source, a.kernel, c, a.arch == "auto" ? "sm_90a" : a.arch, true);
    req.stop_after = tp::Stage::Cuda;
    tp::CompileResult r = tp::compile(req);
    if (!r.ok || !r.func) {
        rec["error"] = r.diagnostics.empty() ? "compile failed" : r.diagnostics[0].message;
        rec["kind"] = r.diagnostics.empty() ? "compile_failed" : tp::diag_info(r.diagnostics[0].kind).name;
        return rec;
    }
    tp::LoadSpec ls;
    ls.path = a.file;
    ls.source = source;
    ls.kernel = a.kernel.empty() ? h.kernel : a.kernel;
    ls.defines = c;
    ls.fallback_defines = h.cpu_args;
    ls.fallback_defines.insert(ls.fallback_defines.end(), h.args.begin(), h.args.end());
    ls.target = a.arch;
    ls.device = "cpu";
    tp::WorkerReply lr = client.load(ls);
    tp::WorkerReply rr = lr.ok ? client.run(tp::RunSpec{}) : lr;
    if (!rr.ok) {
        rec["error"] = rr.error;
        rec["kind"] = rr.kind;
        return rec;
    }
    rec["cpu_ms"] = rr.body.value("interp", Json::object()).value("ms", 0.0);
    const Json check = rr.body.value("check", Json());
    if (check.is_object() && check.contains("outputs") && !check["outputs"].empty()) {
        const Json& o = check["outputs"][0];
        rec["check"] = {{"ok", check.value("ok", false)},
                        {"rel_fro", o.value("rel_fro", 0.0)},
                        {"max_abs", o.value("max_abs", 0.0)},
                        {"tol", o.value("tol", 0.0)}};
    } else {
        rec["check"] = {{"ok", false}, {"error", "no reference for this kernel"}};
    }
    return rec;
}

// GPU: load (compile) in the worker and benchmark with a check against the interpreter.
Json bench_on_gpu(tp::WorkerClient& client, std::mutex& gpu_lock, const SweepArgs& a, const std::string& source, const tp::SampleHeader& h,
                  const Config& c, bool with_baselines) {
    Json rec = {{"config", config_text(c)}, {"device", "gpu"}};
    tp::LoadSpec ls;
    ls.path = a.file;
    ls.source = source;
    ls.kernel = a.kernel.empty() ? h.kernel : a.kernel;
    ls.defines = c;
    ls.fallback_defines = h.args;
    ls.target = a.arch;
    tp::WorkerReply lr = client.load(ls);
    if (!lr.ok) {
        rec["error"] = lr.error;
        rec["kind"] = lr.kind;
        return rec;
    }
    auto vars = numeric_params(lr.body["kernel"]["bound_params"]);
    tp::BenchSpec bs;
    bs.iters = a.iters;
    bs.warmup = a.warmup;
    bs.check_blocks = a.check_blocks;
    if (!h.flops.empty()) bs.flops = tp::eval_formula(h.flops, vars).value_or(0);
    if (!h.bytes.empty()) bs.bytes = tp::eval_formula(h.bytes, vars).value_or(0);
    if (with_baselines) bs.baselines = a.baselines.empty() ? h.baselines : a.baselines;
    tp::WorkerReply br;
    {
        // Workers of a pool on one GPU take turns: timed launches never overlap.
        std::lock_guard<std::mutex> l(gpu_lock);
        br = client.bench(bs);
    }
    if (!br.ok) {
        rec["error"] = br.error;
        rec["kind"] = br.kind;
        return rec;
    }
    for (const char* key : {"ours", "baselines", "best_peer", "semantics", "check", "conditions"})
        if (br.body.contains(key)) rec[key] = br.body[key];
    return rec;
}

// Worst relative error of a row: the CPU check stores it flat, the GPU bench per output.
std::optional<double> rel_error(const Json& r) {
    if (!r.contains("check")) return std::nullopt;
    const Json& c = r["check"];
    if (c.contains("rel_fro")) return c.value("rel_fro", 0.0);
    if (!c.contains("outputs") || c["outputs"].empty()) return std::nullopt;
    double worst = 0;
    for (const auto& o : c["outputs"]) worst = std::max(worst, o.value("rel_fro", 0.0));
    return worst;
}

bool passed(const Json& r) { return !r.contains("error") && r.contains("check") && r["check"].value("ok", false); }

double sort_key(const Json& r) {
    if (!passed(r)) return 1e300;
    if (r.contains("ours")) return r["ours"].value("median_ms", 1e299);
    return r.value("cpu_ms", 1e299);
}

void write_csv(const std::string& path, const Json& rows) {
    std::ofstream out(path);
    out << "config,device,status,median_ms,tflops,gbps,rel_fro,cpu_ms,best\n";
    for (const auto& r : rows) {
        const Json ours = r.value("ours", Json::object());
        out << '"' << r.value("config", "") << "\"," << r.value("device", "") << ','
            << (r.contains("error") ? r.value("kind", "error") : passed(r) ? "ok" : "wrong") << ','
            << ours.value("median_ms", 0.0) << ',' << ours.value("tflops", 0.0) << ',' << ours.value("gbps", 0.0) << ','
            << rel_error(r).value_or(0.0) << ',' << r.value("cpu_ms", 0.0) << ','
            << (r.value("best", false) ? 1 : 0) << '\n';
    }
}

void print_table(const Json& rows, bool gpu) {
    std::printf("  %-40s %12s %14s %12s  %s\n", "config", gpu ? "median" : "cpu time", gpu ? "rate" : "", "rel_fro",
                "status");
    for (const auto& r : rows) {
        const char* mark = r.value("best", false) ? "*" : " ";
        std::string status = r.contains("error") ? r.value("kind", "error") + ": " + r.value("error", "")
                             : passed(r)         ? "ok"
                                                 : "WRONG (" + r["check"].value("error", std::string("exceeds tolerance")) + ")";
        char t[32] = "-", rate[32] = "", err[32] = "-";
        if (r.contains("ours")) {
            std::snprintf(t, sizeof t, "%.4f ms", r["ours"].value("median_ms", 0.0));
            double tf = r["ours"].value("tflops", 0.0), gb = r["ours"].value("gbps", 0.0);
            // One rule with bench and the tutorial: memory-bound kernels are judged in GB/s.
            if (tp::judged_by_bandwidth(tf, gb)) std::snprintf(rate, sizeof rate, "%.0f GB/s", gb);
            else if (tf > 0) std::snprintf(rate, sizeof rate, "%.1f TFLOP/s", tf);
        } else if (r.contains("cpu_ms")) {
            std::snprintf(t, sizeof t, "%.1f ms", r.value("cpu_ms", 0.0));
        }
        if (auto e = rel_error(r)) std::snprintf(err, sizeof err, "%.1e", *e);
        std::printf("%s %-40s %12s %14s %12s  %s\n", mark, r.value("config", "").c_str(), t, rate, err, status.c_str());
    }
}

// The best config beside its peers: each peer's time, its per-round ratio and whether its
// result agrees with ours.
void print_sweep_peers(const Json& peers) {
    if (!peers.is_object() || peers.contains("error")) {
        if (peers.is_object()) std::printf("peers: not timed (%s)\n", peers.value("error", "").c_str());
        return;
    }
    std::printf("best config beside its peers (alternating rounds): %.4f ms\n", peers["ours"].value("median_ms", 0.0));
    for (const auto& b : peers.value("baselines", Json::array())) {
        if (!b.value("ok", false)) {
            std::printf("  %s: %s\n", b.value("name", "").c_str(), b.value("why", "").c_str());
            continue;
        }
        const Json v = b.value("vs_ours", Json::object());
        std::printf("  %s: %.4f ms, ours %.2fx [%.2f-%.2f]%s\n", b.value("name", "").c_str(), b["stats"].value("median_ms", 0.0),
                    b.value("ratio", 0.0), b.value("ratio_min", 0.0), b.value("ratio_max", 0.0),
                    v.contains("agree") ? (v["agree"].get<bool>() ? ", agrees with ours" : ", DIFFERS from ours") : "");
    }
    if (peers.contains("best_peer") && peers["best_peer"].is_object())
        std::printf("vs best peer %s: %.2fx\n", peers["best_peer"].value("name", "").c_str(), peers["best_peer"].value("ratio", 0.0));
}

int run_sweep(const SweepArgs& a) {
    std::string source;
    if (!read_file(a.file, source)) return kUserError;
    tp::SampleHeader h = tp::parse_sample_header(source);
    tp::TuneAxes axes;
    for (const auto& d : a.defines) {
        std::pair<std::string, std::vector<std::string>> axis;
        std::string err;
        if (!tp::parse_axis(d, axis, &err)) {
            std::fprintf(stderr, "tilec sweep: error: `-D`: %s\n", err.c_str());
            return kUsage;
        }
        axes.push_back(std::move(axis));
    }
    std::vector<Config> configs = tp::expand_axes(axes);
    if (axes.empty()) {
        // The file's own space, as `tilec tune` reads it: the factory's @autotune(configs=...),
        // else the header's `# tileplay: tune` line. A sweep is then the exhaustive tune.
        tp::TuneSpace space = tp::find_tune_space(a.file, source, a.kernel.empty() ? h.kernel : a.kernel, {}, h.args,
                                                  a.arch == "auto" ? "sm_90a" : a.arch);
        if (!space.ok && space.diagnostics_text.find("nothing to tune") != std::string::npos) {
            std::fprintf(stderr, "tilec sweep: error: nothing to sweep; give `-D NAME=V1,V2,...`\n");
            return kUsage;
        }
        if (!space.ok) {
            std::fprintf(stderr, "%s", space.diagnostics_text.c_str());
            return kUserError;
        }
        configs = space.configs;
    }

    // The pool: --workers N local workers (one per GPU where there are several) and each
    // --worker SPEC; without either, one local worker, as a lone sweep always had.
    tp::WorkerOptions base;
    base.watchdog_s = a.timeout;
    std::vector<tp::WorkerOptions> members, remote;
    if (!a.worker.empty() && !workers_from_specs(a.worker, base, remote, "sweep")) return kUsage;
    if (a.worker.empty() || a.workers > 0) members = tp::local_workers(a.workers, base);
    members.insert(members.end(), remote.begin(), remote.end());
    const bool explicit_pool = !a.worker.empty() || a.workers > 0;
    std::unique_ptr<tp::WorkerPool> pool;
    bool gpu = false;
    std::string device_line = "cpu interpreter (correctness only, at the sample's cpu-args)";
    if (a.device != "cpu" || explicit_pool) {
        pool = std::make_unique<tp::WorkerPool>(members);
        std::vector<tp::WorkerReply> hellos = pool->hello_all();
        size_t first = 0;
        while (first + 1 < hellos.size() && !pool->alive(first)) ++first;
        const tp::WorkerReply& hello = hellos[first];
        if (!hello.ok && (explicit_pool || hello.kind == "version_mismatch")) {
            std::fprintf(stderr, "tilec sweep: error: %s\n", hello.error.c_str());
            return kUserError;
        }
        gpu = a.device != "cpu" && hello.ok && !hello.body["device"].is_null();
        if (gpu) {
            const Json& d = hello.body["device"];
            device_line = d.value("name", "gpu") + " (" + d.value("arch", d.value("target", "")) + ", target " +
                          (a.arch == "auto" ? d.value("target", "") : a.arch) + ")";
        } else if (a.device == "gpu") {
            std::fprintf(stderr, "tilec sweep: error: no CUDA device: %s\n",
                         (hello.ok ? hello.body.value("why", "") : hello.error).c_str());
            return kUserError;
        }
        if (!gpu && !explicit_pool) pool.reset();  // CPU checks run here, as they always did
    }
    if (pool && pool->size() > 1) {
        device_line += "; pool of " + std::to_string(pool->size()) + " workers:";
        for (size_t i = 0; i < pool->size(); ++i) device_line += (i ? ", " : " ") + pool->where(i);
    }
    if (!a.json) std::printf("sweep of %zu configs on %s\n", configs.size(), device_line.c_str());
    Json rows = Json::array();
    for (size_t i = 0; i < configs.size(); ++i) rows.push_back(Json());
    size_t finished = 0;
    auto progress = [&](size_t i) {
        ++finished;
        if (!a.json) std::fprintf(stderr, "\r  [%zu/%zu] %s\033[K", finished, configs.size(), config_text(configs[i]).c_str());
    };
    if (pool) {
        pool->run(
            configs.size(),
            [&](tp::WorkerClient& c, size_t member, size_t i) {
                rows[i] =
                    gpu ? bench_on_gpu(c, pool->device_lock(member), a, source, h, configs[i], false) : check_in_worker(c, a, source, h, configs[i]);
                rows[i]["worker"] = pool->where(member);
            },
            progress);
    } else {
        for (size_t i = 0; i < configs.size(); ++i) {
            rows[i] = check_on_cpu(a, source, h, configs[i]);
            progress(i);
        }
    }
    if (!a.json) std::fprintf(stderr, "\r\033[K");
    std::vector<Json> sorted(rows.begin(), rows.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const Json& x, const Json& y) { return sort_key(x) < sort_key(y); });
    rows = Json(sorted);
    bool any_pass = !rows.empty() && passed(rows[0]);
    if (any_pass) rows[0]["best"] = true;
    // The best config is timed once more beside the peers, alternating in the same call: its
    // ratio to the best peer is never a figure from two different runs.
    Json peers;
    if (gpu && any_pass) {
        Config best;
        for (const auto& c : configs)
            if (config_text(c) == rows[0].value("config", "")) best = c;
        if (!a.json) std::fprintf(stderr, "  timing the best config beside its peers\n");
        size_t m = 0;
        while (m + 1 < pool->size() && !pool->alive(m)) ++m;
        peers = bench_on_gpu(pool->client(m), pool->device_lock(m), a, source, h, best, true);
        peers["config"] = rows[0].value("config", "");
    }
    if (!a.csv.empty()) write_csv(a.csv, rows);
    // Which worker died and where its configs went: never silent.
    std::vector<std::string> pool_notes = pool ? pool->notes() : std::vector<std::string>{};
    if (a.json) {
        std::printf("%s\n",
                    Json{{"device", device_line}, {"gpu", gpu}, {"configs", rows}, {"peers", peers}, {"pool_notes", pool_notes}}.dump(2).c_str());
    } else {
        for (const auto& n : pool_notes) std::printf("note: %s\n", n.c_str());
        print_table(rows, gpu);
        print_sweep_peers(peers);
        if (any_pass) std::printf("best: %s\n", rows[0].value("config", "").c_str());
        else std::printf("no config passed its check\n");
    }
    return any_pass ? kOk : kUserError;
}

}  // namespace

void add_sweep_command(CLI::App& app, int& exit_code) {
    auto a = std::make_shared<SweepArgs>();
    auto* cmd = app.add_subcommand("sweep", "Compile, check and time every combination of schedule parameters");
    cmd->add_option("file", a->file, "DSL file")->required();
    cmd->add_option("-k,--kernel", a->kernel, "kernel factory");
    cmd->add_option("-D", a->defines, "NAME=V1,V2,... values to sweep (a single value fixes the parameter)");
    cmd->add_option("--arch", a->arch, "target (auto: the GPU's, sm_90 on the CPU)")->capture_default_str();
    cmd->add_option("--device", a->device, "cpu, gpu or auto")->check(CLI::IsMember({"cpu", "gpu", "auto"}))->capture_default_str();
    cmd->add_option("--baseline", a->baselines, "baselines to time once (default: the sample header's)");
    cmd->add_option("--iters", a->iters, "timed launches per config")->capture_default_str();
    cmd->add_option("--warmup", a->warmup, "warm-up launches per config")->capture_default_str();
    cmd->add_option("--timeout", a->timeout, "watchdog seconds per kernel")->capture_default_str();
    cmd->add_option("--check-blocks", a->check_blocks, "thread blocks the CPU interpreter checks per config (0 = all)")->capture_default_str();
    cmd->add_option("--csv", a->csv, "also write the table as CSV to this file");
    cmd->add_flag("--json", a->json, "print JSON instead of the table");
    add_worker_option(cmd, a->worker, true);
    cmd->add_option("--workers", a->workers, "local workers in the pool (default: one per GPU; with --worker, none unless given)");
    cmd->callback([a, &exit_code] { exit_code = run_sweep(*a); });
}

}  // namespace tilec
