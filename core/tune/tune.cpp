// run_tune: space -> cache lookup -> static filter -> parallel compile -> GPU benchmark (or CPU
// check) -> ranking -> cache store. See tileplay/tune.h.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>

#include "runtime/cuda_driver.h"
#include "runtime/nvrtc.h"
#include "tileplay/compiler.h"
#include "tileplay/source_reader.h"
#include "tileplay/worker_pool.h"
#include "tune/tune_internal.h"

#ifndef TILEPLAY_VERSION
#define TILEPLAY_VERSION "dev"
#endif

namespace tp {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Everything that changes the answer, hashed twice with different seeds for a 128-bit name.
std::string cache_key(const TuneOptions& o, const tune::TuneJob& job, const TuneSpace& space, const std::string& device,
                      const std::string& driver, bool gpu) {
    std::ostringstream k;
    k << "tileplay " << TILEPLAY_VERSION << '\0' << "toolkit " << runtime::nvrtc_version() << '\0' << "device "
      << device << '\0' << "driver " << driver << '\0' << "target " << job.target << '\0' << "kernel " << job.kernel
      << '\0' << "source " << job.source << '\0';
    // The parameters in effect, not how they were given: -D M=256 where the header's args say
    // M=256 is the same problem (the playground passes its panel's values, the CLI often none).
    std::map<std::string, std::string> fixed;
    for (const auto& [n, v] : job.header.args) fixed[n] = v;
    for (const auto& [n, v] : job.defines) fixed[n] = v;
    for (const auto& [n, v] : fixed) k << "D " << n << '=' << v << '\0';
    for (const auto& c : space.configs) k << "config " << config_text(c) << '\0';
    if (gpu) k << "iters " << o.iters << " warmup " << o.warmup << " check_blocks " << o.check_blocks << '\0';
    else k << "max_cpu_checks " << o.max_cpu_checks << '\0';
    return digest128(k.str());
}

// Rank: timed by median, then CPU-checked, then the rest by how far they got.
int group(TuneStatus s) {
    switch (s) {
        case TuneStatus::Timed: return 0;
        case TuneStatus::Passed: return 1;
        case TuneStatus::Kept: return 2;
        case TuneStatus::Compiled: return 3;
        case TuneStatus::Wrong: return 4;
        case TuneStatus::Failed: return 5;
        case TuneStatus::CannotLaunch: return 6;
        case TuneStatus::CompileFailed: return 7;
        case TuneStatus::Rejected: return 8;
    }
    return 9;
}

}  // namespace

void rank_tune_results(TuneReport& r) {
    std::stable_sort(r.results.begin(), r.results.end(), [](const TuneResult& a, const TuneResult& b) {
        if (group(a.status) != group(b.status)) return group(a.status) < group(b.status);
        if (a.status == TuneStatus::Timed) return a.median_ms < b.median_ms;
        return false;
    });
    r.best = -1;
    for (auto& t : r.results) t.best = false;
    // Only a timed and validated config can be best: a CPU check says nothing about speed.
    if (!r.results.empty() && r.results[0].status == TuneStatus::Timed) {
        r.best = 0;
        r.results[0].best = true;
    }
}

namespace {

// Progress events come from several threads; the callback sees them one at a time.
class Progress {
public:
    explicit Progress(const TuneProgress& cb) : cb_(cb) {}
    void start(const std::string& phase, int total) {
        std::lock_guard<std::mutex> l(m_);
        phase_ = phase;
        total_ = total;
        done_ = 0;
        if (cb_) cb_({phase_, 0, total_, ""});
    }
    void step(const TuneConfig& c) {
        std::lock_guard<std::mutex> l(m_);
        ++done_;
        if (cb_) cb_({phase_, done_, total_, config_text(c)});
    }

private:
    const TuneProgress& cb_;
    std::mutex m_;
    std::string phase_;
    int done_ = 0, total_ = 0;
};

size_t first_alive(const WorkerPool& pool) {
    size_t i = 0;
    while (i + 1 < pool.size() && !pool.alive(i)) ++i;
    return i;
}

std::vector<size_t> with_status(const TuneReport& r, TuneStatus s) {
    std::vector<size_t> idx;
    for (size_t i = 0; i < r.results.size(); ++i)
        if (r.results[i].status == s) idx.push_back(i);
    return idx;
}

}  // namespace

TuneReport run_tune(const TuneOptions& opts, const TuneProgress& progress_cb, const std::atomic<bool>* cancel) {
    auto t0 = Clock::now();
    TuneReport rep;
    rep.dry_run = opts.dry_run;
    tune::TuneJob job;
    job.path = opts.path;
    job.source = opts.source;
    if (job.source.empty() && !read_source_file(opts.path, job.source)) {
        rep.error = "cannot read `" + opts.path + "`";
        return rep;
    }
    if (job.source.size() > kMaxSourceBytes) {
        rep.error = "`" + opts.path + "` is too large: " + source_too_large_message();
        return rep;
    }
    job.header = parse_sample_header(job.source);
    job.kernel = opts.kernel.empty() ? job.header.kernel : opts.kernel;
    job.defines = opts.defines;
    int jobs = opts.jobs > 0 ? opts.jobs : std::max(1u, std::thread::hardware_concurrency());
    rep.jobs = jobs;

    // The device decides the target (auto) and whether configs are timed: the first worker
    // of the pool that answers says.
    std::unique_ptr<WorkerPool> pool;
    std::string driver;
    rep.device = "cpu interpreter";
    std::string gpu_target;
    if (opts.device != "cpu" || !opts.pool.empty()) {
        WorkerOptions wo;
        wo.command = opts.worker_command;
        wo.watchdog_s = opts.timeout_s;
        std::vector<WorkerOptions> members = opts.pool;
        for (auto& m : members) m.watchdog_s = opts.timeout_s;
        if (members.empty()) members.push_back(wo);
        pool = std::make_unique<WorkerPool>(members);
        std::vector<WorkerReply> hellos = pool->hello_all();
        const WorkerReply& hello = hellos[first_alive(*pool)];
        if (!hello.ok && (!opts.pool.empty() || hello.kind == "version_mismatch")) {
            rep.error = hello.error;
            return rep;
        }
        rep.gpu = opts.device != "cpu" && hello.ok && hello.body.contains("device") && !hello.body["device"].is_null();
        if (rep.gpu) {
            // "target" is what auto compiles for (sm_90a on Hopper), "arch" the GPU's own.
            gpu_target = hello.body["device"].value("target", "");
            rep.device = hello.body["device"].value("name", "gpu") + " (" + hello.body["device"].value("arch", gpu_target) + ")";
            driver = hello.body.value("driver", "");
        } else if (opts.device != "cpu") {
            std::string why = hello.ok ? hello.body.value("why", "") : hello.error;
            if (opts.device == "gpu") {
                rep.error = "no CUDA device: " + why;
                return rep;
            }
            rep.notes.push_back("no CUDA device (" + why +
                                "): configs are filtered, compiled and checked on the CPU "
                                "interpreter; timing and ranking need a GPU");
        }
        if (!rep.gpu && opts.pool.empty()) pool.reset();
    }
    job.target = opts.target != "auto" && !opts.target.empty() ? opts.target : rep.gpu ? gpu_target : "sm_90";
    if (rep.gpu && !target_runs_on(job.target, gpu_target)) {
        rep.notes.push_back("`--arch " + job.target + "` does not run on the GPU's " + gpu_target +
                            ": configs are compiled for " + job.target + " but not timed");
        rep.gpu = false;
        rep.device = "cpu interpreter";
        if (opts.pool.empty()) pool.reset();
    }
    rep.target = job.target;

    TuneConfig fixed = job.defines;
    fixed.insert(fixed.end(), job.header.args.begin(), job.header.args.end());
    TuneSpace space = find_tune_space(job.path, job.source, job.kernel, opts.axes, fixed, job.target);
    rep.diagnostics = space.diagnostics;
    rep.diagnostics_text = space.diagnostics_text;
    if (!space.ok) {
        rep.error = space.diagnostics.empty() ? "no tuning space" : space.diagnostics[0].message;
        return rep;
    }
    rep.space_origin = space.origin;
    for (const auto& c : space.configs) {
        TuneResult t;
        t.config = c;
        rep.results.push_back(std::move(t));
    }

    std::string cache_dir = opts.cache_dir.empty() ? default_tune_cache_dir() : opts.cache_dir;
    bool caching = opts.use_cache && !opts.dry_run;
    if (caching) {
        rep.cache_key = cache_key(opts, job, space, rep.device, driver, rep.gpu);
        rep.cache_file = tune::cache_path(cache_dir, rep.cache_key);
        TuneReport cached;
        if (!opts.force && tune::load_cached(rep.cache_file, cached) && cached.cache_key == rep.cache_key) {
            cached.from_cache = true;
            cached.cache_file = rep.cache_file;
            return cached;
        }
    }
    rep.ok = true;
    Progress progress(progress_cb);
    auto run_phase = [&](const std::string& phase, const std::vector<size_t>& idx, int threads, auto&& fn) {
        progress.start(phase, static_cast<int>(idx.size()));
        tune::parallel_for(idx.size(), threads, [&](size_t k) {
            fn(rep.results[idx[k]]);
            progress.step(rep.results[idx[k]].config);
        }, cancel);
    };

    // 1. Static filter: cheap (no NVRTC), so every config goes through it.
    std::vector<size_t> all(rep.results.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    run_phase("filter", all, jobs, [&](TuneResult& t) { tune::static_filter(job, t); });

    // 2. NVRTC in parallel: registers, spills, configs that cannot launch.
    std::string no_nvrtc;
    if (!opts.dry_run && !rep.gpu && !runtime::nvrtc_available(&no_nvrtc)) {
        // The CPU check needs no cubin: go on without registers and spills rather than fail.
        rep.notes.push_back("NVRTC is not available (" + no_nvrtc + "): configs are not compiled, so registers, "
                            "spills and launch limits are unknown");
        for (auto& t : rep.results)
            if (t.status == TuneStatus::Kept) t.status = TuneStatus::Compiled;
    } else if (!opts.dry_run) {
        auto tc = Clock::now();
        run_phase("compile", with_status(rep, TuneStatus::Kept), jobs, [&](TuneResult& t) { tune::compile_config(job, t); });
        rep.compile_seconds = seconds_since(tc);
    }

    // 3. Validate (and time, on a GPU) what compiled.
    std::vector<size_t> runnable = opts.dry_run ? std::vector<size_t>{} : with_status(rep, TuneStatus::Compiled);
    // Per-config jobs over the pool's workers; a worker that dies hands its config on.
    auto run_pool_phase = [&](const std::string& phase, const std::vector<size_t>& idx, auto&& fn) {
        progress.start(phase, static_cast<int>(idx.size()));
        pool->run(
            idx.size(), [&](WorkerClient& c, size_t member, size_t k) { fn(c, member, rep.results[idx[k]]); },
            [&](size_t k) { progress.step(rep.results[idx[k]].config); }, cancel);
    };
    if (rep.gpu && !runnable.empty()) {
        if (opts.pool.empty()) {
            // Several local workers load (compile) side by side and take turns on the GPU; with
            // several GPUs here, one worker per GPU unless --workers says otherwise.
            int count = opts.gpu_workers > 0 ? opts.gpu_workers : runtime::cuda_device_count() > 1 ? 0 : std::min(jobs, 4);
            if (count > 0) count = std::max(1, std::min<int>(count, static_cast<int>(runnable.size())));
            WorkerOptions wo = pool->client(0).options();
            pool = std::make_unique<WorkerPool>(local_workers(count, wo));
            pool->hello_all();
        }
        run_pool_phase("bench", runnable,
                       [&](WorkerClient& c, size_t member, TuneResult& t) { tune::bench_on_gpu(c, pool->device_lock(member), job, opts, t); });
    } else if (!runnable.empty()) {
        if (opts.max_cpu_checks >= 0 && runnable.size() > static_cast<size_t>(opts.max_cpu_checks)) {
            rep.notes.push_back("checked " + std::to_string(opts.max_cpu_checks) + " of " +
                                std::to_string(runnable.size()) + " compiled configs on the CPU (--max-cpu-checks)");
            runnable.resize(static_cast<size_t>(opts.max_cpu_checks));
        }
        if (pool) {
            run_pool_phase("check", runnable, [&](WorkerClient& c, size_t, TuneResult& t) { tune::check_in_worker(c, job, t); });
        } else {
            job.interp_threads = runnable.size() >= static_cast<size_t>(jobs) ? 1 : std::max(1, jobs / static_cast<int>(runnable.size()));
            run_phase("check", runnable, jobs, [&](TuneResult& t) { tune::check_on_cpu(job, t); });
        }
    }
    rep.cancelled = cancel && cancel->load();
    rank_tune_results(rep);
    // The winner once more beside the peers, alternating in one call: the ratio to the best
    // peer is never taken between two runs.
    if (rep.gpu && rep.best >= 0 && !rep.cancelled && !job.header.baselines.empty()) {
        if (progress_cb) progress_cb({"peers", 0, 1, config_text(rep.results[rep.best].config)});
        rep.peers = tune::bench_beside_peers(pool->client(first_alive(*pool)), job, opts, rep.results[rep.best]);
    }
    if (pool) {
        for (const auto& n : pool->notes()) rep.notes.push_back(n);
        pool->shutdown();
    }
    rep.seconds = seconds_since(t0);
    if (progress_cb) progress_cb({"done", static_cast<int>(rep.results.size()), static_cast<int>(rep.results.size()), ""});
    if (caching && !rep.cancelled) {
        std::string err;
        if (!tune::store_cached(rep.cache_file, rep, &err)) rep.notes.push_back("not cached: " + err);
    }
    return rep;
}

}  // namespace tp
