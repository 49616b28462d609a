// The worker's `bench` op. One checked launch first, downloaded at once: that output is what
// every check reads. It is checked twice: against the CPU interpreter on the same inputs (the
// code generator) and against every peer's own result (the semantics: the interpreter runs
// the same DSL, so it shares any mistake in it). Then our kernel and its peers (cuBLAS,
// cuBLASLt, torch eager or compiled) alternate in rounds; each peer's ratio is the median of
// per-round ratios, "best_peer" the fastest that ran. The GPU's clocks and power are sampled
// throughout. "ratio" is peer time / our time: above 1 we are faster.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>

#include "runtime/gpu_monitor.h"
#include "runtime/rounds.h"
#include "tileplay/interp.h"
#include "worker/bench_peers.h"

namespace tp::worker {

namespace {

Json stats_json(const runtime::TimingStats& s, double flops, double bytes) {
    Json j = {{"n", s.n},           {"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms},
              {"mean_ms", s.mean_ms}, {"spread_pct", s.spread_pct}};
    if (flops > 0) j["tflops"] = runtime::tflops(flops, s.median_ms);
    if (bytes > 0) j["gbps"] = runtime::gbps(bytes, s.median_ms);
    return j;
}

// The semantic check: every peer whose result could be compared must agree with ours. With
// none, a C++ reference of the header's baseline where it is cheap enough to compute on the
// CPU; else the check says it did not run (it is never reported as a pass).
Json semantics_json(const std::vector<BenchPeer>& peers, const KernelSession& s, const PreparedArgs& a,
                    const std::map<std::string, HostTensor>& ours, const std::vector<std::string>& lines, double flops) {
    Json against = Json::array();
    bool ok = true;
    double worst = 0;
    for (const auto& p : peers) {
        if (!p.vs_ours.contains("agree")) continue;
        against.push_back(p.spec.text);
        ok = ok && p.vs_ours["agree"].get<bool>();
        worst = std::max(worst, p.vs_ours["rel_fro"].is_number() ? p.vs_ours["rel_fro"].get<double>() : INFINITY);
    }
    if (!against.empty())
        return {{"checked", true}, {"ok", ok}, {"against", against}, {"rel_fro", std::isfinite(worst) ? Json(worst) : Json(nullptr)}};
    if (lines.empty()) return {{"checked", false}, {"why", "no peer named to compare with"}};
    if (flops <= 0 || flops > 4e9)
        return {{"checked", false}, {"why", "no peer ran, and the problem is too large for the CPU reference"}};
    std::map<std::string, HostTensor> args = a.host;
    ReferenceResult ref = cpu_reference(lines, *s.compiled->func, args);
    if (!ref.available || !ours.count(ref.output)) return {{"checked", false}, {"why", "no peer ran and " + ref.error}};
    Json c = compare_json(ours.at(ref.output), ref.expected);
    return {{"checked", true}, {"ok", c.value("agree", false)}, {"against", {"cpu reference: " + ref.name}},
            {"rel_fro", c["rel_fro"]}};
}

// The fastest peer that ran, with its per-round ratio and spread.
Json best_peer_json(const Json& base) {
    const Json* best = nullptr;
    for (const auto& b : base)
        if (b.value("ok", false) && (!best || b["stats"]["median_ms"] < (*best)["stats"]["median_ms"])) best = &b;
    if (!best) return nullptr;
    return {{"name", (*best)["name"]}, {"ratio", (*best)["ratio"]}, {"ratio_min", (*best)["ratio_min"]},
            {"ratio_max", (*best)["ratio_max"]}, {"median_ms", (*best)["stats"]["median_ms"]}};
}

Json peer_json(const BenchPeer& p, const runtime::TimingStats& s, const runtime::RatioStats& r, double flops, double bytes) {
    Json j = {{"name", p.spec.text}};
    if (p.setup.is_object()) {
        j["method"] = p.setup.value("method", "");
        if (p.setup.value("compile_ms", 0.0) > 0) j["compile_ms"] = p.setup["compile_ms"];
    }
    if (!p.vs_ours.is_null()) j["vs_ours"] = p.vs_ours;
    if (!p.ready || s.n == 0) {
        j["ok"] = false;
        j["why"] = p.why.empty() ? "unavailable: it gave no timings" : p.why;
        return j;
    }
    j["ok"] = true;
    j["stats"] = stats_json(s, flops, bytes);
    j["ratio"] = r.median;
    j["ratio_min"] = r.min;
    j["ratio_max"] = r.max;
    j["ratio_spread_pct"] = r.spread_pct;
    j["rounds"] = r.rounds;
    return j;
}

runtime::BenchOptions bench_options(const Json& req) {
    runtime::BenchOptions bo;
    bo.warmup = req.value("warmup", 10);
    bo.iters = req.value("iters", 50);
    bo.flush_l2 = req.value("flush_l2", true);
    if (bo.iters < 1 || bo.iters > 100000 || bo.warmup < 0 || bo.warmup > 100000)
        throw WorkerError("bad_request", "`iters` must be 1..100000 and `warmup` 0..100000");
    return bo;
}

// Warm-up, then ours and every ready peer in alternating rounds, with the GPU's clocks
// sampled throughout. `timed[i]` is the peer behind round peer i + 1.
struct Timed {
    runtime::RoundPlan plan;
    runtime::RoundsResult rr;
    std::vector<size_t> timed;
    runtime::GpuConditions cond;
};

Timed time_peers(std::vector<BenchPeer>& peers, WorkerState& st, runtime::EventTimer& timer, PreparedArgs& a,
                 const runtime::BenchOptions& bo, const std::function<void(int, int)>& progress) {
    runtime::LoadedKernel& k = *st.session.kernel;
    auto launch_ours = [&] { launch_all(k, a); };  // every launch of the kernel, as TileLang times it
    for (int w = 0; w < bo.warmup; ++w) {
        launch_ours();
        for (auto& p : peers)
            if (p.ready && p.ip.launch) p.ip.launch();
    }
    runtime::cu_check(runtime::cuda_driver().cuCtxSynchronize(), "warm-up launches");
    Timed t;
    std::vector<runtime::RoundPeer> rpeers = {{"ours", [&](int n) { return timer.time(launch_ours, n, "ours"); }}};
    for (size_t i = 0; i < peers.size(); ++i)
        if (peers[i].ready) {
            t.timed.push_back(i);
            rpeers.push_back(round_peer(peers[i], st, timer));
        }
    t.plan = runtime::plan_rounds(bo.iters);
    runtime::GpuMonitor monitor(st.device().info().pci_bus_id);
    monitor.start();
    t.rr = runtime::time_in_rounds(rpeers, t.plan, progress);
    t.cond = monitor.stop();
    return t;
}

}  // namespace

Json handle_bench(const Json& req, WorkerState& st, Emitter& em) {
    runtime::DeviceContext& dev = st.device();
    if (!st.session.kernel) throw WorkerError("bad_request", "no kernel is loaded; send `load` first");
    uint64_t seed = req.value("seed", uint64_t{0});
    double flops = req.value("flops", 0.0), bytes = req.value("bytes", 0.0);
    runtime::BenchOptions bo = bench_options(req);
    std::map<std::string, int64_t> scalars;
    if (req.contains("scalars") && req["scalars"].is_object())
        for (auto it = req["scalars"].begin(); it != req["scalars"].end(); ++it) scalars[it.key()] = it.value();
    std::vector<std::string> lines;
    if (req.contains("baselines") && req["baselines"].is_array())
        for (const auto& b : req["baselines"]) lines.push_back(b.is_string() ? b.get<std::string>() : b.dump());

    PreparedArgs a;
    {
        Heartbeat hb(em, req["id"], "inputs", st.opts.heartbeat_s);
        a = prepare_args(st.session, seed, scalars, "");
    }
    // The checked launch: a kernel that faults does so here, before any timing, and its
    // output, downloaded now, is what both checks and every peer's comparison read.
    runtime::LoadedKernel& k = *st.session.kernel;
    launch_all(k, a);
    runtime::cu_check(runtime::cuda_driver().cuCtxSynchronize(), "kernel execution");
    const std::map<std::string, HostTensor> ours = download_outputs(st.session, a);
    Json reply = {{"ok", true}, {"launch", a.launch.describe()}, {"device", dev.info().name}};
    if (std::string printed = take_printed(); !printed.empty()) reply["printed"] = printed;
    if (req.value("check", true)) {
        Heartbeat hb(em, req["id"], "check", st.opts.heartbeat_s);
        reply["check"] = check_against_interpreter(st.session, a, ours, req.value("check_blocks", 64), seed);
    }

    std::vector<BenchPeer> peers = make_peers(lines, st.session, a);
    std::string scratch = std::filesystem::temp_directory_path() / ("tileplay-bench-" + std::to_string(::getpid()));
    std::string torch_detail;
    {
        Heartbeat hb(em, req["id"], "torch", st.opts.heartbeat_s);
        setup_torch_peers(peers, st, a, ours, bo.warmup, bo.flush_l2, scratch, torch_detail);
    }
    std::error_code ec;
    std::filesystem::remove_all(scratch, ec);

    runtime::EventTimer timer(dev.info(), bo.flush_l2);
    Timed t = time_peers(peers, st, timer, a, bo, [&](int done, int total) {
        em.emit({{"event", "progress"}, {"id", req["id"]}, {"stage", "bench"}, {"done", done}, {"total", total}});
    });
    const runtime::RoundsResult& rr = t.rr;
    const std::vector<size_t>& timed = t.timed;
    const runtime::RoundPlan& plan = t.plan;
    compare_in_process_peers(peers, ours);
    if (st.torch && !torch_detail.empty()) st.torch->call({{"op", "release"}}, 60 * 1000);

    Json base = Json::array();
    for (size_t i = 0; i < peers.size(); ++i) {
        auto at = std::find(timed.begin(), timed.end(), i);
        size_t r = at == timed.end() ? 0 : static_cast<size_t>(at - timed.begin()) + 1;
        Json j = r ? peer_json(peers[i], rr.stats[r], rr.vs_first[r], flops, bytes)
                   : peer_json(peers[i], runtime::TimingStats{}, runtime::RatioStats{}, flops, bytes);
        if (peers[i].spec.kind == baselines::BaselineSpec::Kind::Torch && !torch_detail.empty()) j["detail"] = torch_detail;
        base.push_back(std::move(j));
    }
    reply["ours"] = stats_json(rr.stats[0], flops, bytes);
    reply["baselines"] = base;
    reply["best_peer"] = best_peer_json(base);
    reply["semantics"] = semantics_json(peers, st.session, a, ours, lines, flops);
    take_printed();  // the timed launches' prints repeat the first one's
    reply["conditions"] = t.cond.to_json();
    reply["timing"] = {{"method", "CUDA events around each launch; torch peers: their own events around a graph replay"},
                       {"rounds", plan.rounds}, {"per_round", plan.per_round}, {"l2_flush", timer.flush_description()}};
    reply["flops"] = flops;
    reply["bytes"] = bytes;
    reply["warmup"] = bo.warmup;
    reply["iters"] = plan.rounds * plan.per_round;
    reply["flush_l2"] = bo.flush_l2;
    return reply;
}

}  // namespace tp::worker
