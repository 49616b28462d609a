// `tilec bench FILE` / `tilec bench --suite DIR`: times kernels on the GPU through the worker
// (L2 flushed, median of N) against the baselines of the sample header or --baseline, and
// prints a table (kernel, config, our time, TFLOP/s or GB/s, each baseline and the ratio) or
// JSON. A kernel that faults or hangs is reported and the suite carries on with a new worker.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli_common.h"
#include "tileplay/worker_client.h"

namespace tilec {

namespace {

struct BenchArgs {
    std::string file, suite, kernel;
    std::string arch = "auto";  // sm_90a on an H100/H200 takes the wgmma path
    std::vector<std::string> defines, baselines;
    bool json = false, no_flush = false, no_check = false;
    std::string json_out;  // also write the JSON report here while printing the table
    int check_blocks = 64;
    int iters = 50, warmup = 10;
    double timeout = 10;
};

std::string config_text(const tp::Json& kernel) {
    std::string s;
    for (auto it = kernel["bound_params"].begin(); it != kernel["bound_params"].end(); ++it) {
        if (!s.empty()) s += " ";
        s += it.key() + "=" + it.value().get<std::string>();
    }
    return s;
}

// Benchmarks one file; returns its JSON record (with "error" when it failed).
tp::Json bench_file(tp::WorkerClient& client, const std::string& path, const BenchArgs& a) {
    tp::Json rec = {{"file", path}};
    std::string source;
    if (!read_file(path, source)) {
        rec["error"] = "cannot read " + path;
        return rec;
    }
    tp::SampleHeader h = tp::parse_sample_header(source);
    tp::LoadSpec ls;
    ls.path = path;
    ls.source = source;
    ls.kernel = a.kernel.empty() ? h.kernel : a.kernel;
    ls.target = a.arch;
    if (!parse_defines(a.defines, ls.defines)) {
        rec["error"] = "bad -D value";
        return rec;
    }
    ls.fallback_defines = h.args;
    tp::WorkerReply lr = client.load(ls);
    if (!lr.ok) {
        rec["error"] = lr.error;
        rec["kind"] = lr.kind;
        if (lr.body.contains("diagnostics")) rec["diagnostics"] = lr.body["diagnostics"];
        return rec;
    }
    const tp::Json& k = lr.body["kernel"];
    rec["kernel"] = k.value("factory", k.value("name", ""));
    rec["config"] = config_text(k);
    std::map<std::string, double> vars;
    for (auto it = k["bound_params"].begin(); it != k["bound_params"].end(); ++it) {
        try {
            vars[it.key()] = std::stod(it.value().get<std::string>());
        } catch (const std::exception&) {
        }
    }
    tp::BenchSpec bs;
    bs.iters = a.iters;
    bs.warmup = a.warmup;
    bs.flush_l2 = !a.no_flush;
    bs.check = !a.no_check;
    bs.check_blocks = a.check_blocks;
    if (!h.flops.empty()) bs.flops = tp::eval_formula(h.flops, vars).value_or(0);
    if (!h.bytes.empty()) bs.bytes = tp::eval_formula(h.bytes, vars).value_or(0);
    bs.baselines = a.baselines.empty() ? h.baselines : a.baselines;
    tp::WorkerReply br = client.bench(bs, [&](const tp::Json& ev) {
        if (!a.json && ev.value("stage", "") == "bench")
            std::fprintf(stderr, "\r  %s: %d/%d", path.c_str(), ev.value("done", 0), ev.value("total", 0));
    });
    if (!a.json) std::fprintf(stderr, "\r\033[K");
    if (!br.ok) {
        rec["error"] = br.error;
        rec["kind"] = br.kind;
        if (!br.stderr_tail.empty()) rec["stderr"] = br.stderr_tail;
        return rec;
    }
    for (const char* key : {"ours", "baselines", "check", "launch", "device", "flops", "bytes", "iters", "warmup", "flush_l2"})
        if (br.body.contains(key)) rec[key] = br.body[key];
    return rec;
}

std::string rate(const tp::Json& stats) {
    char buf[64] = "-";
    if (stats.contains("tflops") && stats["tflops"].get<double>() > 0)
        std::snprintf(buf, sizeof(buf), "%.1f TFLOP/s", stats["tflops"].get<double>());
    if (tp::judged_by_bandwidth(stats.value("tflops", 0.0), stats.value("gbps", 0.0)))
        std::snprintf(buf, sizeof(buf), "%.0f GB/s", stats["gbps"].get<double>());
    return buf;
}

void print_row(const tp::Json& r) {
    std::string name = r.value("kernel", std::filesystem::path(r.value("file", "")).stem().string());
    if (r.contains("error")) {
        std::printf("%-22s %-28s FAILED (%s): %s\n", name.c_str(), r.value("config", "").c_str(),
                    r.value("kind", "error").c_str(), r["error"].get<std::string>().c_str());
        return;
    }
    const tp::Json& o = r["ours"];
    std::string check = "-";
    if (r.contains("check")) {
        char buf[48];
        if (r["check"].contains("outputs") && !r["check"]["outputs"].empty())
            std::snprintf(buf, sizeof(buf), "%s %.1e", r["check"].value("ok", false) ? "ok" : "FAIL",
                          r["check"]["outputs"][0].value("rel_fro", 0.0));
        else
            std::snprintf(buf, sizeof(buf), "%s", r["check"].value("ok", false) ? "ok" : "FAIL");
        check = buf;
    }
    std::printf("%-22s %-28s %9.4f ms %14s  check %-10s", name.c_str(), r.value("config", "").c_str(),
                o.value("median_ms", 0.0), rate(o).c_str(), check.c_str());
    for (const auto& b : r.value("baselines", tp::Json::array())) {
        if (!b.value("ok", false)) {
            std::printf("  | %s %s", b.value("name", "").c_str(), b.value("why", "").c_str());
            continue;
        }
        std::printf("  | %s %.4f ms (%.2fx)", b.value("name", "").c_str(), b["stats"].value("median_ms", 0.0),
                    b.value("ratio", 0.0));
        // Whether torch computes what we compute, on the same inputs.
        if (b.contains("vs_ours") && b["vs_ours"].contains("rel_fro"))
            std::printf(" %s ours: rel_fro %.1e", b["vs_ours"].value("agree", false) ? "agrees with" : "DIFFERS from",
                        b["vs_ours"].value("rel_fro", 0.0));
    }
    std::printf("\n");
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
    auto a = std::make_shared<BenchArgs>();
    auto* cmd = app.add_subcommand("bench", "Time kernels on the GPU against cuBLAS / PyTorch baselines");
    cmd->add_option("file", a->file, "DSL file (with a `# tileplay:` header)");
    cmd->add_option("--suite", a->suite, "benchmark every .py file with a `# tileplay: kernel=` header in DIR");
    cmd->add_option("-k,--kernel", a->kernel, "kernel factory (default: the header's, else the first)");
    cmd->add_option("--arch", a->arch, "target (auto: the GPU's; sm_90a for wgmma on Hopper)")->capture_default_str();
    cmd->add_option("-D", a->defines, "NAME=VALUE for a kernel parameter")->allow_extra_args(false);
    cmd->add_option("--baseline", a->baselines, "baseline: cublas.gemm, cublaslt.gemm_bias_gelu, 'torch: EXPR'");
    cmd->add_option("--iters", a->iters, "timed launches")->default_val(50);
    cmd->add_option("--warmup", a->warmup, "untimed launches first")->default_val(10);
    cmd->add_option("--timeout", a->timeout, "watchdog: seconds a kernel may run silently")->default_val(10);
    cmd->add_flag("--no-flush", a->no_flush, "do not flush L2 before each timed launch");
    cmd->add_flag("--no-check", a->no_check, "skip the check against the CPU interpreter");
    cmd->add_flag("--json", a->json, "print JSON instead of the table");
    cmd->add_option("--json-out", a->json_out, "also write the JSON report to this file");
    cmd->add_option("--check-blocks", a->check_blocks, "thread blocks the CPU interpreter checks (0 = all)")->capture_default_str();
    cmd->callback([&exit_code, a] {
        std::vector<std::string> files;
        if (!a->suite.empty()) {
            std::error_code ec;
            for (const auto& e : std::filesystem::directory_iterator(a->suite, ec)) {
                std::string src;
                if (e.path().extension() == ".py" && read_file(e.path().string(), src) &&
                    !tp::parse_sample_header(src).kernel.empty())
                    files.push_back(e.path().string());
            }
            if (ec) {
                std::fprintf(stderr, "tilec bench: cannot list `%s`: %s\n", a->suite.c_str(), ec.message().c_str());
                exit_code = kUserError;
                return;
            }
            std::sort(files.begin(), files.end());
        } else if (!a->file.empty()) {
            files.push_back(a->file);
        } else {
            std::fprintf(stderr, "tilec bench: give a FILE or `--suite DIR`\n");
            exit_code = kUsage;
            return;
        }
        tp::WorkerOptions wo;
        wo.watchdog_s = a->timeout;
        tp::WorkerClient client(wo);
        tp::WorkerReply hello = client.hello();
        if (!hello.ok || hello.body["device"].is_null()) {
            std::string why = hello.ok ? hello.body.value("why", "") : hello.error;
            if (a->json)
                std::printf("%s\n", tp::Json{{"ok", false}, {"error", "no CUDA device: " + why}}.dump(2).c_str());
            else
                std::printf("no CUDA device: %s; `tilec run --device cpu` runs kernels on the CPU\n", why.c_str());
            exit_code = kOk;
            return;
        }
        tp::Json all = tp::Json::array();
        bool failed = false;
        if (!a->json)
            std::printf("%s (%s), %d timed launches after %d warm-up, L2 %s\n",
                        hello.body["device"].value("name", "").c_str(), hello.body["device"].value("target", "").c_str(),
                        a->iters, a->warmup, a->no_flush ? "not flushed" : "flushed before each");
        for (const auto& f : files) {
            tp::Json rec = bench_file(client, f, *a);
            failed |= rec.contains("error") || (rec.contains("check") && !rec["check"].value("ok", false));
            if (!a->json) print_row(rec);
            std::fflush(stdout);
            all.push_back(std::move(rec));
        }
        tp::Json report = {{"device", hello.body["device"]}, {"driver", hello.body.value("driver", "")},
                           {"restarts", client.restarts()}, {"results", all}};
        if (a->json) std::printf("%s\n", report.dump(2).c_str());
        if (!a->json_out.empty()) {
            std::ofstream out(a->json_out);
            out << report.dump(2) << "\n";
        }
        exit_code = failed ? kUserError : kOk;
    });
}

}  // namespace tilec
