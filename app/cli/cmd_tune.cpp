// `tilec tune FILE`: autotunes a kernel over its search space (the factory's
// @autotune(configs=...), the `# tileplay: tune` header, or -T NAME=V1,V2 axes) with the core
// tuner (tileplay/tune.h): static filter, parallel compile, GPU benchmark with validation (or
// CPU checks without a GPU), ranking, and an on-disk cache. Prints the top-k table and the best
// config, or every config with its reason under --dry-run / --all; JSON and CSV on request.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include "cli_common.h"
#include "tileplay/tune.h"
#include "tileplay/worker_client.h"
#include "tileplay/worker_pool.h"

namespace tilec {

namespace {

struct TuneArgs {
    tp::TuneOptions o;
    std::vector<std::string> defines, axes, worker;
    std::string csv;
    bool json = false, all = false, no_cache = false;
};

// One line that redraws itself: phase, bar, count, the config just finished.
void draw_progress(const tp::TuneEvent& e) {
    if (e.phase == "done") {
        std::fprintf(stderr, "\r\033[K");
        return;
    }
    const int width = 24;
    int filled = e.total > 0 ? e.done * width / e.total : 0;
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(width, '.');
    std::fprintf(stderr, "\r  %-8s [%s] %d/%d %s\033[K", e.phase.c_str(), bar.c_str(), e.done, e.total,
                 e.config.substr(0, 60).c_str());
    std::fflush(stderr);
}

std::string status_text(const tp::TuneResult& t) {
    std::string s = tp::tune_status_name(t.status);
    if (!t.kind.empty() && t.status != tp::TuneStatus::Timed && t.status != tp::TuneStatus::Passed) s += " " + t.kind;
    if (!t.reason.empty()) s += ": " + t.reason;
    return s;
}

void print_row(size_t rank, const tp::TuneResult& t, int width) {
    char time[32] = "-", rate[32] = "", regs[24] = "-", spill[24] = "-", smem[24] = "-", err[24] = "-";
    if (t.status == tp::TuneStatus::Timed) {
        std::snprintf(time, sizeof time, "%.4f ms", t.median_ms);
        if (tp::judged_by_bandwidth(t.tflops, t.gbps)) std::snprintf(rate, sizeof rate, "%.0f GB/s", t.gbps);
        else if (t.tflops > 0) std::snprintf(rate, sizeof rate, "%.1f TFLOP/s", t.tflops);
    }
    if (t.registers >= 0) std::snprintf(regs, sizeof regs, "%d", t.registers);
    if (t.spill_bytes >= 0) std::snprintf(spill, sizeof spill, "%lld", static_cast<long long>(t.spill_bytes));
    if (t.shared_bytes >= 0) std::snprintf(smem, sizeof smem, "%lldK", static_cast<long long>((t.shared_bytes + 1023) / 1024));
    if (t.rel_fro >= 0) std::snprintf(err, sizeof err, "%.1e", t.rel_fro);
    std::printf("%s%3zu %-*s %11s %13s %5s %6s %6s %8s  %s\n", t.best ? "*" : " ", rank, width, tp::config_text(t.config).c_str(),
                time, rate, regs, spill, smem, err, status_text(t).c_str());
}

// The best config beside its peers, timed alternating in one call.
void print_tune_peers(const tp::Json& p) {
    if (p.is_null()) return;
    if (p.contains("error")) {
        std::printf("peers: not timed (%s)\n", p.value("error", "").c_str());
        return;
    }
    for (const auto& b : p.value("baselines", tp::Json::array())) {
        if (!b.value("ok", false)) {
            std::printf("  peer %s: %s\n", b.value("name", "").c_str(), b.value("why", "").c_str());
            continue;
        }
        const tp::Json v = b.value("vs_ours", tp::Json::object());
        std::printf("  peer %s: %.4f ms, ours %.2fx [%.2f-%.2f]%s\n", b.value("name", "").c_str(), b["stats"].value("median_ms", 0.0),
                    b.value("ratio", 0.0), b.value("ratio_min", 0.0), b.value("ratio_max", 0.0),
                    v.contains("agree") ? (v["agree"].get<bool>() ? ", agrees with ours" : ", DIFFERS from ours") : "");
    }
    if (p.contains("best_peer") && p["best_peer"].is_object())
        std::printf("vs best peer %s: %.2fx (best config beside its peers, alternating rounds)\n",
                    p["best_peer"].value("name", "").c_str(), p["best_peer"].value("ratio", 0.0));
}

void print_report(const tp::TuneReport& r, const TuneArgs& a) {
    std::map<std::string, int> counts;
    for (const auto& t : r.results) counts[tp::tune_status_name(t.status)]++;
    std::string summary;
    for (const auto& [k, n] : counts) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + k;
    std::printf("%zu configs from %s; target %s on %s%s\n", r.results.size(), r.space_origin.c_str(), r.target.c_str(),
                r.device.c_str(), r.dry_run ? " (dry run: nothing compiled)" : "");
    std::printf("%s\n", summary.c_str());
    bool every = a.all || r.dry_run;
    size_t shown = 0;
    int width = 6;
    for (const auto& t : r.results) width = std::max(width, static_cast<int>(tp::config_text(t.config).size()));
    std::printf(" %3s %-*s %11s %13s %5s %6s %6s %8s  %s\n", "#", width, "config", "median", "rate", "regs", "spill",
                "smem", "rel_fro", "status");
    for (size_t i = 0; i < r.results.size(); ++i) {
        const auto& t = r.results[i];
        bool ranked = t.status == tp::TuneStatus::Timed || t.status == tp::TuneStatus::Passed;
        if (!every && (!ranked || shown >= static_cast<size_t>(a.o.top_k))) continue;
        print_row(i + 1, t, width);
        ++shown;
    }
    if (!every) {
        // What the table left out, by reason kind, so rejections are never silent.
        std::map<std::string, int> why;
        for (const auto& t : r.results)
            if (t.status != tp::TuneStatus::Timed && t.status != tp::TuneStatus::Passed)
                why[std::string(tp::tune_status_name(t.status)) + (t.kind.empty() ? "" : " " + t.kind)]++;
        for (const auto& [k, n] : why) std::printf("  %d %s\n", n, k.c_str());
        if (!why.empty()) std::printf("  (--all lists every config with its reason)\n");
    }
    for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
    if (r.best >= 0) {
        const auto& b = r.results[static_cast<size_t>(r.best)];
        std::printf("best: %s (%.4f ms", tp::config_text(b.config).c_str(), b.median_ms);
        if (b.tflops > 0) std::printf(", %.1f TFLOP/s", b.tflops);
        std::printf(")\n");
        print_tune_peers(r.peers);
    } else if (!r.dry_run) {
        std::printf(r.gpu ? "no config passed its check\n" : "best: none (timing needs a GPU)\n");
    }
    if (r.from_cache)
        std::printf("answered from the cache %s (the tune took %.1f s; --force re-tunes)\n", r.cache_file.c_str(), r.seconds);
    else if (!r.dry_run)
        std::printf("tuned in %.1f s (compile %.1f s on %d threads)%s\n", r.seconds, r.compile_seconds, r.jobs,
                    r.cache_file.empty() ? "" : ("; cached in " + r.cache_file).c_str());
}

int run_tune_command(TuneArgs& a) {
    if (!parse_defines(a.defines, a.o.defines)) return kUsage;
    for (const auto& text : a.axes) {
        std::pair<std::string, std::vector<std::string>> axis;
        std::string err;
        if (!tp::parse_axis(text, axis, &err)) {
            std::fprintf(stderr, "tilec tune: error: `-T`: %s\n", err.c_str());
            return kUsage;
        }
        a.o.axes.push_back(std::move(axis));
    }
    if (!read_file(a.o.path, a.o.source)) return kUserError;
    a.o.use_cache = !a.no_cache;
    // A pool when asked for: --workers N local workers and each --worker SPEC.
    if (!a.worker.empty() || a.o.gpu_workers > 0) {
        tp::WorkerOptions base;
        base.command = a.o.worker_command;
        std::vector<tp::WorkerOptions> remote;
        if (!a.worker.empty() && !workers_from_specs(a.worker, base, remote, "tune")) return kUsage;
        if (a.worker.empty() || a.o.gpu_workers > 0) a.o.pool = tp::local_workers(a.o.gpu_workers, base);
        a.o.pool.insert(a.o.pool.end(), remote.begin(), remote.end());
    }
    bool bar = !a.json && isatty(STDERR_FILENO);
    tp::TuneReport r = tp::run_tune(a.o, bar ? tp::TuneProgress(draw_progress) : tp::TuneProgress());
    if (bar) std::fprintf(stderr, "\r\033[K");
    if (!a.csv.empty()) {
        std::ofstream out(a.csv);
        out << tp::tune_report_csv(r);
        if (!out) std::fprintf(stderr, "tilec tune: error: cannot write `%s`\n", a.csv.c_str());
    }
    if (!r.ok && !r.from_cache) {
        if (a.json) std::printf("%s\n", tp::tune_report_json(r).dump(2).c_str());
        if (!r.diagnostics_text.empty()) std::fprintf(stderr, "%s", r.diagnostics_text.c_str());
        else std::fprintf(stderr, "tilec tune: error: %s\n", r.error.c_str());
        return kUserError;
    }
    if (a.json) std::printf("%s\n", tp::tune_report_json(r).dump(2).c_str());
    else print_report(r, a);
    bool any = false;
    for (const auto& t : r.results)
        any |= t.status == tp::TuneStatus::Timed || t.status == tp::TuneStatus::Passed ||
               (r.dry_run && t.status == tp::TuneStatus::Kept);
    return any ? kOk : kUserError;
}

}  // namespace

void add_tune_command(CLI::App& app, int& exit_code) {
    auto a = std::make_shared<TuneArgs>();
    auto* cmd = app.add_subcommand("tune", "Autotune a kernel over its search space (@autotune configs, header or -T)");
    cmd->add_option("file", a->o.path, "DSL file")->required();
    cmd->add_option("-k,--kernel", a->o.kernel, "kernel factory (default: the header's, else the first)");
    cmd->add_option("-D", a->defines, "NAME=VALUE fixes a parameter (the problem size, a dtype)");
    cmd->add_option("-T", a->axes, "NAME=V1,V2,... an axis of the space; replaces the file's space");
    cmd->add_option("--arch", a->o.target, "target (auto: the GPU's, sm_90 without one)")->capture_default_str();
    cmd->add_option("--device", a->o.device, "cpu, gpu or auto")->check(CLI::IsMember({"cpu", "gpu", "auto"}))->capture_default_str();
    cmd->add_flag("--dry-run", a->o.dry_run, "list every config kept or rejected with its reason; compile nothing");
    cmd->add_option("-j,--jobs", a->o.jobs, "compile threads (0: one per core)")->capture_default_str();
    cmd->add_option("--workers", a->o.gpu_workers,
                    "local workers in the pool (default: min(jobs, 4) sharing the GPU, one per GPU where there are several)");
    add_worker_option(cmd, a->worker, true);
    cmd->add_option("--top", a->o.top_k, "rows of the table")->capture_default_str();
    cmd->add_flag("--all", a->all, "list every config, ranked, with its reason");
    cmd->add_option("--iters", a->o.iters, "timed launches per config")->capture_default_str();
    cmd->add_option("--warmup", a->o.warmup, "warm-up launches per config")->capture_default_str();
    cmd->add_option("--timeout", a->o.timeout_s, "watchdog seconds per kernel")->capture_default_str();
    cmd->add_option("--check-blocks", a->o.check_blocks, "blocks the interpreter checks per GPU config")->capture_default_str();
    cmd->add_option("--max-cpu-checks", a->o.max_cpu_checks, "without a GPU: configs checked on the CPU interpreter (-1: all)")
        ->capture_default_str();
    cmd->add_flag("--force", a->o.force, "re-tune even when the cache has the answer");
    cmd->add_flag("--no-cache", a->no_cache, "neither read nor write the cache");
    cmd->add_option("--cache-dir", a->o.cache_dir, "cache folder (default: $TILEPLAY_CACHE_DIR, $XDG_CACHE_HOME/tileplay/tune)");
    cmd->add_option("--csv", a->csv, "also write the ranked table as CSV to this file");
    cmd->add_flag("--json", a->json, "print JSON instead of the table");
    cmd->callback([a, &exit_code] { exit_code = run_tune_command(*a); });
}

}  // namespace tilec
