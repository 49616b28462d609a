// Baseline peers of a bench request: parse, ready, time, compare; see bench_peers.h.
#include "worker/bench_peers.h"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "tensor/npy.h"

namespace tp::worker {

namespace {

// The first output parameter: what every peer's result is compared with.
const TensorParamInfo* first_output(const KernelInfo& k) {
    for (const auto& p : k.params)
        if (p.is_output && !p.is_scalar) return &p;
    return nullptr;
}

// The torch worker's {"ok", "rel_fro", "max_abs", "nonfinite", "why"} in our terms. A null
// rel_fro is a NaN or infinity: never agreement.
Json torch_comparison(const Json& v, double tol) {
    if (!v.is_object() || !v.value("ok", false))
        return {{"why", v.is_object() ? v.value("why", std::string("not compared")) : std::string("not compared")}};
    bool finite = v.contains("rel_fro") && v["rel_fro"].is_number();
    double rel = finite ? v["rel_fro"].get<double>() : INFINITY;
    int64_t nonfinite = v.value("nonfinite", int64_t{0});
    Json j = {{"rel_fro", finite ? Json(rel) : Json(nullptr)}, {"tol", tol}, {"nonfinite", nonfinite},
              {"agree", finite && rel <= tol && nonfinite == 0}};
    if (v.contains("max_abs") && v["max_abs"].is_number()) j["max_abs"] = v["max_abs"];
    return j;
}

// The setup reply: which torch peers are ready, how they are timed, how they compare.
void read_setup_reply(const Json& r, const std::vector<BenchPeer*>& torch, double tol) {
    if (!r.value("ok", false)) {
        for (BenchPeer* p : torch) p->why = "unavailable: " + r.value("why", std::string("the torch worker failed"));
        return;
    }
    for (const auto& b : r.value("baselines", Json::array())) {
        for (BenchPeer* p : torch) {
            if (!b.contains("key") || b["key"] != p->torch_key) continue;
            p->ready = b.value("ok", false);
            if (!p->ready) p->why = "unavailable: " + b.value("why", std::string("no reason given"));
            p->setup = {{"method", b.value("method", "")}, {"compile_ms", b.value("compile_ms", 0.0)}};
            p->vs_ours = torch_comparison(b.value("vs_ours", Json()), tol);
        }
    }
}

}  // namespace

Json compare_json(const HostTensor& ours, const HostTensor& ref) {
    CompareResult c = compare_tensors(ours, ref);
    if (c.shape_mismatch) return {{"why", "shapes differ: ours " + ours.describe() + ", the baseline's " + ref.describe()}};
    return {{"rel_fro", std::isfinite(c.rel_fro) ? Json(c.rel_fro) : Json(nullptr)},
            {"max_abs", std::isfinite(c.max_abs) ? Json(c.max_abs) : Json(nullptr)},
            {"tol", c.tol},
            {"nonfinite", c.nonfinite},
            {"agree", c.pass}};
}

std::vector<BenchPeer> make_peers(const std::vector<std::string>& lines, const KernelSession& s, const PreparedArgs& a) {
    std::vector<BenchPeer> peers;
    baselines::BaselineInputs in;
    in.kernel = &s.info();
    in.device = &a.device;
    for (const auto& line : lines) {
        BenchPeer p;
        p.spec = baselines::parse_baseline_spec(line);
        using K = baselines::BaselineSpec::Kind;
        if (p.spec.kind == K::Unknown) {
            p.why = "unavailable: " + p.spec.error;
        } else if (p.spec.kind == K::Cublas || p.spec.kind == K::CublasLt) {
            p.ip = baselines::make_in_process_baseline(p.spec, in);
            p.ready = p.ip.ok;
            if (!p.ready) p.why = "unavailable: " + p.ip.why;
        }
        peers.push_back(std::move(p));
    }
    return peers;
}

void setup_torch_peers(std::vector<BenchPeer>& peers, WorkerState& st, const PreparedArgs& a,
                       const std::map<std::string, HostTensor>& ours, int warmup, bool flush_l2,
                       const std::string& scratch, std::string& detail) {
    std::vector<BenchPeer*> torch;
    for (auto& p : peers)
        if (p.spec.kind == baselines::BaselineSpec::Kind::Torch) torch.push_back(&p);
    if (torch.empty()) return;
    auto fail_all = [&](const std::string& why) {
        for (BenchPeer* p : torch) {
            p->ready = false;
            p->why = "unavailable: " + why;
        }
    };
    if (!st.torch) st.torch = std::make_unique<baselines::TorchWorker>();
    std::string why;
    if (!st.torch->ensure_started(why)) return fail_all(why);
    detail = st.torch->detail();
    std::error_code ec;
    std::filesystem::create_directories(scratch, ec);
    const KernelInfo& k = st.session.info();
    Json dtypes = Json::object();
    for (const auto& p : k.params) {
        if (p.is_output || p.is_scalar) continue;
        const HostTensor& t = a.host.at(p.name);
        if (!write_npy(scratch + "/" + p.name + ".npy", t, &why)) return fail_all("cannot save the inputs for torch: " + why);
        dtypes[p.name] = t.dtype.name();
    }
    Json req = {{"op", "setup"},  {"inputs_dir", scratch}, {"dtypes", dtypes}, {"params", k.bound_params},
                {"warmup", warmup}, {"flush_l2", flush_l2}};
    double tol = 0;
    if (const TensorParamInfo* out = first_output(k); out && ours.count(out->name)) {
        const HostTensor& o = ours.at(out->name);
        std::string path = scratch + "/ours-" + out->name + ".npy";
        if (write_npy(path, o, &why)) {
            req["ours"] = path;
            req["ours_dtype"] = o.dtype.name();
        }
        tol = default_tolerance(o.dtype);
    }
    Json specs = Json::array();
    for (size_t i = 0; i < torch.size(); ++i) {
        torch[i]->torch_key = std::to_string(i);
        specs.push_back({{"key", torch[i]->torch_key}, {"expr", torch[i]->spec.expr},
                         {"compile", torch[i]->spec.compile_mode}, {"sdpa", torch[i]->spec.sdpa}});
    }
    req["baselines"] = specs;
    // torch.compile with max-autotune benchmarks its own candidates: minutes, not seconds.
    Json r = st.torch->call(req, 1800 * 1000);
    try {
        read_setup_reply(r, torch, tol);
    } catch (const Json::exception& e) {
        fail_all(std::string("the torch worker's reply is malformed: ") + e.what());
    }
}

runtime::RoundPeer round_peer(BenchPeer& p, WorkerState& st, runtime::EventTimer& timer) {
    if (p.spec.kind != baselines::BaselineSpec::Kind::Torch)
        return {p.spec.text, [&p, &timer](int n) { return timer.time(p.ip.launch, n, p.spec.text); }};
    return {p.spec.text, [&p, &st](int n) -> std::vector<double> {
                if (!p.ready) return {};
                Json r = st.torch->call({{"op", "time"}, {"key", p.torch_key}, {"n", n}}, 120 * 1000);
                try {
                    if (r.value("ok", false)) return r.at("times_ms").get<std::vector<double>>();
                    p.why = "failed while timing: " + r.value("why", std::string("no reason given"));
                } catch (const Json::exception& e) {
                    p.why = std::string("failed while timing: malformed reply: ") + e.what();
                }
                p.ready = false;
                return {};
            }};
}

void compare_in_process_peers(std::vector<BenchPeer>& peers, const std::map<std::string, HostTensor>& ours) {
    for (auto& p : peers) {
        if (!p.ready || !p.ip.result) continue;
        auto it = ours.find(p.ip.output);
        if (it == ours.end()) continue;
        p.vs_ours = compare_json(it->second, p.ip.result());
    }
}

}  // namespace tp::worker
