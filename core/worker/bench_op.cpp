// The worker's `bench` op: our kernel and the in-process baselines timed interleaved on the
// same device tensors, then the PyTorch baselines on the same inputs, with TFLOP/s and GB/s
// from the request's per-launch FLOP and byte counts. "ratio" is baseline time / our time:
// above 1 we are faster.
#include <filesystem>
#include <unistd.h>

#include "baselines/baselines.h"
#include "worker/worker_state.h"

namespace tp::worker {

namespace {

Json stats_json(const runtime::TimingStats& s, double flops, double bytes) {
    Json j = {{"n", s.n},           {"median_ms", s.median_ms}, {"min_ms", s.min_ms}, {"max_ms", s.max_ms},
              {"mean_ms", s.mean_ms}, {"spread_pct", s.spread_pct}};
    if (flops > 0) j["tflops"] = runtime::tflops(flops, s.median_ms);
    if (bytes > 0) j["gbps"] = runtime::gbps(bytes, s.median_ms);
    return j;
}

}  // namespace

Json handle_bench(const Json& req, WorkerState& st, Emitter& em) {
    runtime::DeviceContext& dev = st.device();
    if (!st.session.kernel) throw WorkerError("bad_request", "no kernel is loaded; send `load` first");
    uint64_t seed = req.value("seed", uint64_t{0});
    double flops = req.value("flops", 0.0), bytes = req.value("bytes", 0.0);
    runtime::BenchOptions bo;
    bo.warmup = req.value("warmup", 10);
    bo.iters = req.value("iters", 50);
    bo.flush_l2 = req.value("flush_l2", true);
    if (bo.iters < 1 || bo.iters > 100000 || bo.warmup < 0)
        throw WorkerError("bad_request", "`iters` must be 1..100000 and `warmup` >= 0");
    std::map<std::string, int64_t> scalars;
    if (req.contains("scalars") && req["scalars"].is_object())
        for (auto it = req["scalars"].begin(); it != req["scalars"].end(); ++it) scalars[it.key()] = it.value();

    PreparedArgs a;
    {
        Heartbeat hb(em, req["id"], "inputs", st.opts.heartbeat_s);
        a = prepare_args(st.session, seed, scalars, "");
    }
    // One checked launch first: a kernel that faults does so here, before any timing.
    runtime::LoadedKernel& k = *st.session.kernel;
    k.launch(a.launch, a.args);
    runtime::cu_check(runtime::cuda_driver().cuCtxSynchronize(), "kernel execution");
    Json reply = {{"ok", true}, {"launch", a.launch.describe()}, {"device", dev.info().name}};
    // What the checked launch printed; the timed launches' copies are dropped below.
    if (std::string printed = take_printed(); !printed.empty()) reply["printed"] = printed;
    if (req.value("check", true)) {
        auto outs = download_outputs(st.session, a);
        Heartbeat hb(em, req["id"], "check", st.opts.heartbeat_s);
        reply["check"] = check_against_interpreter(st.session, a, outs, req.value("check_blocks", 64), seed);
    }

    baselines::BaselineInputs bin;
    bin.kernel = &st.session.info();
    bin.host = &a.host;
    bin.device = &a.device;
    bin.opts = bo;
    std::vector<runtime::TimedCandidate> cands = {{"ours", [&] { k.launch(a.launch, a.args); }}};
    std::vector<std::shared_ptr<void>> keep;
    Json base = Json::array();
    std::vector<std::pair<size_t, size_t>> cand_of;  // baseline index -> candidate index
    std::vector<std::string> specs;
    if (req.contains("baselines") && req["baselines"].is_array())
        for (const auto& b : req["baselines"]) specs.push_back(b.is_string() ? b.get<std::string>() : b.dump());
    for (const auto& spec : specs) {
        Json bj = {{"name", spec}};
        if (baselines::is_in_process_spec(spec)) {
            baselines::InProcessBaseline ip = baselines::make_in_process_baseline(spec, bin);
            if (ip.ok) {
                cand_of.emplace_back(base.size(), cands.size());
                cands.push_back(ip.candidate);
                keep.push_back(ip.state);
            } else {
                bj["ok"] = false;
                bj["why"] = "unavailable: " + ip.why;
            }
        } else if (!baselines::is_torch_spec(spec)) {
            bj["ok"] = false;
            bj["why"] = "unavailable: unknown baseline `" + spec + "`; use `cublas.gemm`, `cublaslt.gemm_bias_gelu` or `torch: EXPR`";
        }
        base.push_back(bj);
    }
    auto stats = runtime::bench_interleaved(dev.info(), cands, bo, [&](int done, int total) {
        if (done % 10 == 0 || done == total)
            em.emit({{"event", "progress"}, {"id", req["id"]}, {"stage", "bench"}, {"done", done}, {"total", total}});
    });
    reply["ours"] = stats_json(stats[0], flops, bytes);
    for (const auto& [bi, ci] : cand_of) {
        base[bi]["ok"] = true;
        base[bi]["stats"] = stats_json(stats[ci], flops, bytes);
        base[bi]["ratio"] = stats[0].median_ms > 0 ? stats[ci].median_ms / stats[0].median_ms : 0;
    }
    // PyTorch runs in its own process after ours, on the same inputs saved as .npy.
    bool any_torch = false;
    for (const auto& spec : specs) any_torch |= baselines::is_torch_spec(spec);
    if (any_torch) {
        std::string dir = std::filesystem::temp_directory_path() / ("tileplay-bench-" + std::to_string(::getpid()));
        bin.scratch_dir = dir;
        // Ours after the timed launches: the same result the checked launch gave.
        std::map<std::string, HostTensor> ours = download_outputs(st.session, a);
        bin.ours = &ours;
        for (size_t i = 0; i < specs.size(); ++i) {
            if (!baselines::is_torch_spec(specs[i])) continue;
            baselines::ExternalResult er;
            {
                Heartbeat hb(em, req["id"], "torch", st.opts.heartbeat_s);
                er = baselines::run_torch_baseline(specs[i], bin);
            }
            base[i]["ok"] = er.ok;
            if (!er.ok) {
                base[i]["why"] = "unavailable: " + er.why;
                continue;
            }
            base[i]["stats"] = stats_json(er.stats, flops, bytes);
            base[i]["ratio"] = stats[0].median_ms > 0 ? er.stats.median_ms / stats[0].median_ms : 0;
            if (!er.detail.empty()) base[i]["detail"] = er.detail;
            if (er.compared) {
                // The same dtype-aware tolerance as the interpreter check.
                double tol = 0;
                for (const auto& [name, t] : ours) tol = std::max(tol, default_tolerance(t.dtype));
                base[i]["vs_ours"] = {{"rel_fro", er.rel_fro}, {"max_abs", er.max_abs}, {"tol", tol}, {"agree", er.rel_fro <= tol}};
            } else if (!er.compare_why.empty()) {
                base[i]["vs_ours"] = {{"why", er.compare_why}};
            }
        }
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
    reply["baselines"] = base;
    take_printed();  // the timed launches' prints repeat the first one's
    reply["flops"] = flops;
    reply["bytes"] = bytes;
    reply["warmup"] = bo.warmup;
    reply["iters"] = bo.iters;
    reply["flush_l2"] = bo.flush_l2;
    return reply;
}

}  // namespace tp::worker
