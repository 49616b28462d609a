// `tilec bench FILE` / `tilec bench --suite DIR`: times kernels on the GPU through the worker
// against the peers of the sample header or --baseline (alternating rounds, L2 flushed), and
// prints a row per configuration (bench_report.h), JSON, or the README's Markdown table. A
// suite also times each header `variant`. A kernel that faults or hangs is reported and the
// suite carries on with a new worker.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "bench_report.h"
#include "cli_common.h"
#include "tileplay/worker_client.h"
#include "timeline_file.h"

namespace tilec {

namespace {

struct BenchArgs {
    std::string file, suite, kernel;
    std::string arch = "auto";  // sm_90a on an H100/H200 takes the wgmma path
    std::vector<std::string> defines, baselines, pass_configs, worker;
    bool json = false, no_flush = false, no_check = false;
    std::string json_out;  // also write the JSON report here while printing the table
    std::string markdown;  // and the Markdown table here
    std::string timeline;  // --timeline FILE: after the timed runs, one stamped run's Chrome trace
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

// One configuration to benchmark: a file, and for a header variant its name and defines.
struct BenchJob {
    std::string path, variant, arch;
    std::vector<std::pair<std::string, std::string>> defines;
};

// The jobs of a file: its header configuration, and in a suite each `variant` line too.
std::vector<BenchJob> jobs_of(const std::string& path, const BenchArgs& a, bool suite) {
    std::vector<BenchJob> jobs = {{path, "", a.arch, {}}};
    std::string source;
    if (!suite || !read_file(path, source)) return jobs;
    for (const auto& v : tp::parse_sample_header(source).variants) {
        BenchJob j{path, v.name, a.arch, {}};
        for (const auto& [k, val] : v.args) {
            if (k == "arch") j.arch = val;
            else j.defines.emplace_back(k, val);
        }
        jobs.push_back(std::move(j));
    }
    return jobs;
}

// Benchmarks one configuration; returns its JSON record (with "error" when it failed).
tp::Json bench_job(tp::WorkerClient& client, const BenchJob& job, const BenchArgs& a) {
    tp::Json rec = {{"file", job.path}};
    if (!job.variant.empty()) rec["variant"] = job.variant;
    std::string source;
    if (!read_file(job.path, source)) {
        rec["error"] = "cannot read " + job.path;
        return rec;
    }
    tp::SampleHeader h = tp::parse_sample_header(source);
    tp::LoadSpec ls;
    ls.path = job.path;
    ls.source = source;
    ls.kernel = a.kernel.empty() ? h.kernel : a.kernel;
    ls.target = job.arch;
    if (!parse_defines(a.defines, ls.defines)) {
        rec["error"] = "bad -D value";
        return rec;
    }
    // -D on the command line wins over a variant's values, which win over the header's args.
    for (const auto& [k, v] : job.defines) {
        bool given = false;
        for (const auto& d : ls.defines) given |= d.first == k;
        if (!given) ls.defines.emplace_back(k, v);
    }
    ls.fallback_defines = h.args;
    parse_defines(a.pass_configs, ls.pass_configs, true);
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
    rec["target"] = lr.body.value("target", "");
    const std::map<std::string, double> vars = tp::formula_values(k["bound_params"].get<std::map<std::string, std::string>>());
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
            std::fprintf(stderr, "\r  %s: round %d/%d", job.path.c_str(), ev.value("done", 0), ev.value("total", 0));
    });
    if (!a.json) std::fprintf(stderr, "\r\033[K");
    if (!br.ok) {
        rec["error"] = br.error;
        rec["kind"] = br.kind;
        if (!br.stderr_tail.empty()) rec["stderr"] = br.stderr_tail;
        return rec;
    }
    for (const char* key : {"ours", "baselines", "best_peer", "check", "semantics", "conditions", "timing", "launch", "device",
                            "flops", "bytes", "iters", "warmup", "flush_l2"})
        if (br.body.contains(key)) rec[key] = br.body[key];
    // The timeline comes from a kernel of its own (stamped), so the timed launches above ran the
    // kernel as it is.
    if (!a.timeline.empty()) {
        std::string msg;
        bool ok = capture_timeline(client, ls, a.timeline, msg);
        rec[ok ? "timeline" : "timeline_error"] = ok ? a.timeline : msg;
        if (!a.json) std::fprintf(stderr, "%s%s\n", ok ? "" : "tilec bench: no timeline: ", msg.c_str());
    }
    return rec;
}

// The files of `--suite DIR` (each .py with a `# tileplay: kernel=` header), or FILE.
bool bench_files(const BenchArgs& a, std::vector<std::string>& files, int& exit_code) {
    if (a.suite.empty() && a.file.empty()) {
        std::fprintf(stderr, "tilec bench: give a FILE or `--suite DIR`\n");
        exit_code = kUsage;
        return false;
    }
    if (a.suite.empty()) {
        files.push_back(a.file);
        return true;
    }
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(a.suite, ec)) {
        std::string src;
        if (e.path().extension() == ".py" && read_file(e.path().string(), src) && !tp::parse_sample_header(src).kernel.empty())
            files.push_back(e.path().string());
    }
    if (ec) {
        std::fprintf(stderr, "tilec bench: cannot list `%s`: %s\n", a.suite.c_str(), ec.message().c_str());
        exit_code = kUserError;
        return false;
    }
    std::sort(files.begin(), files.end());
    return true;
}

int run_bench(const BenchArgs& a, const std::string& command_line) {
    int exit_code = kOk;
    std::vector<std::string> files;
    if (!bench_files(a, files, exit_code)) return exit_code;
    if (!a.timeline.empty() && !a.suite.empty()) {
        std::fprintf(stderr, "tilec bench: --timeline writes one kernel's trace; give a FILE, not `--suite`\n");
        return kUsage;
    }
    tp::WorkerOptions base;
    base.watchdog_s = a.timeout;
    std::vector<tp::WorkerOptions> wo;
    if (!workers_from_specs(a.worker, base, wo, "bench")) return kUsage;
    tp::WorkerClient client(wo[0]);
    tp::WorkerReply hello = client.hello();
    if (!hello.ok && (hello.kind == "version_mismatch" || wo[0].where != "local")) {
        std::fprintf(stderr, "tilec bench: error: %s\n", hello.error.c_str());
        return kUserError;
    }
    if (!hello.ok || hello.body["device"].is_null()) {
        std::string why = hello.ok ? hello.body.value("why", "") : hello.error;
        if (a.json) std::printf("%s\n", tp::Json{{"ok", false}, {"error", "no CUDA device: " + why}}.dump(2).c_str());
        else std::printf("no CUDA device: %s; `tilec run --device cpu` runs kernels on the CPU\n", why.c_str());
        return kOk;
    }
    const tp::Json& dev = hello.body["device"];
    if (!a.json)
        std::printf("%s (%s, auto target %s), %d timed launches in rounds after %d warm-up, L2 %s\n", dev.value("name", "").c_str(),
                    dev.value("arch", dev.value("target", "")).c_str(), dev.value("target", "").c_str(), a.iters, a.warmup,
                    a.no_flush ? "not flushed" : "flushed before each");
    tp::Json all = tp::Json::array();
    bool failed = false;
    for (const auto& f : files)
        for (const BenchJob& job : jobs_of(f, a, !a.suite.empty())) {
            tp::Json rec = bench_job(client, job, a);
            failed |= bench_record_failed(rec);
            if (!a.json) std::printf("%s\n", bench_row_text(rec).c_str());
            std::fflush(stdout);
            all.push_back(std::move(rec));
        }
    tp::Json report = {{"device", dev}, {"driver", hello.body.value("driver", "")}, {"restarts", client.restarts()},
                       {"command", command_line}, {"results", all}};
    if (a.json) std::printf("%s\n", report.dump(2).c_str());
    if (!a.json_out.empty()) {
        std::ofstream out(a.json_out);
        out << report.dump(2) << "\n";
    }
    if (!a.markdown.empty()) {
        std::string why;
        if (!write_markdown(a.markdown, bench_markdown(report, command_line), why)) {
            std::fprintf(stderr, "tilec bench: %s\n", why.c_str());
            return kUserError;
        }
    }
    return failed ? kUserError : kOk;
}

}  // namespace

void add_bench_command(CLI::App& app, int& exit_code) {
    auto a = std::make_shared<BenchArgs>();
    auto* cmd = app.add_subcommand("bench", "Time kernels on the GPU against their peers (cuBLAS, cuBLASLt, torch, torch.compile)");
    cmd->add_option("file", a->file, "DSL file (with a `# tileplay:` header)");
    cmd->add_option("--suite", a->suite, "benchmark every .py file with a `# tileplay: kernel=` header in DIR, and its variants");
    cmd->add_option("-k,--kernel", a->kernel, "kernel factory (default: the header's, else the first)");
    cmd->add_option("--arch", a->arch, "target (auto: the GPU's, sm_90a on Hopper)")->capture_default_str();
    cmd->add_option("-D", a->defines, "NAME=VALUE for a kernel parameter")->allow_extra_args(false);
    cmd->add_option("--pass-config", a->pass_configs, "TileLang pass config KEY=VALUE, e.g. tl.disable_warp_specialized=true")->allow_extra_args(false);
    cmd->add_option("--baseline", a->baselines,
                    "peer: cublas.gemm, cublaslt.gemm, cublaslt.gemm_bias_gelu, 'torch: EXPR', 'torch[sdpa=cudnn]: EXPR', "
                    "'torch.compile: EXPR', 'torch.compile[max-autotune]: EXPR'");
    cmd->add_option("--iters", a->iters, "timed launches of each, in up to 10 alternating rounds")->default_val(50);
    cmd->add_option("--warmup", a->warmup, "untimed launches first")->default_val(10);
    cmd->add_option("--timeout", a->timeout, "watchdog: seconds a kernel may run silently")->default_val(10);
    cmd->add_flag("--no-flush", a->no_flush, "do not flush L2 before each timed launch");
    cmd->add_flag("--no-check", a->no_check, "skip the check against the CPU interpreter");
    cmd->add_flag("--json", a->json, "print JSON instead of the table");
    cmd->add_option("--json-out", a->json_out, "also write the JSON report to this file");
    cmd->add_option("--markdown", a->markdown,
                    "write the results as a Markdown table to FILE (between bench-table markers when it has them)");
    cmd->add_option("--timeline", a->timeline,
                    "after the timed runs, run the kernel once with its pipeline events stamped (tp.timeline=true) and write "
                    "their Chrome trace to FILE");
    cmd->add_option("--check-blocks", a->check_blocks, "thread blocks the CPU interpreter checks (0 = all)")->capture_default_str();
    add_worker_option(cmd, a->worker, false);
    cmd->callback([&exit_code, a] {
        std::string line = "tilec bench";
        if (!a->suite.empty()) line += " --suite " + a->suite;
        if (!a->file.empty()) line += " " + a->file;
        if (a->arch != "auto") line += " --arch " + a->arch;
        for (const auto& d : a->defines) line += " -D " + d;
        exit_code = run_bench(*a, line);
    });
}

}  // namespace tilec
