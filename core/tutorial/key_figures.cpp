// Key figures of the tutorial's status table, one short line per section, read from the JSON
// each command prints. On the CPU the times are the interpreter's and say so.
#include <cstdio>

#include "tutorial/key_figures.h"

#include "tileplay/worker_client.h"

namespace tp::tutorial {

namespace {

using Json = nlohmann::json;

std::string fmt(const char* f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

double num(const Json& j, const char* key, double dflt = 0) {
    return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : dflt;
}

std::string rate(const Json& stats) { return rate_text(num(stats, "tflops"), num(stats, "gbps")); }

std::string doctor(const Json& out) {
    std::string gpu, nvrtc;
    for (const auto& l : out) {
        std::string item = l.value("item", "");
        if (item.rfind("gpu", 0) == 0 && gpu.empty()) gpu = (l.value("ok", false) ? "" : "no GPU: ") + l.value("text", "");
        if (item == "nvrtc") nvrtc = l.value("ok", false) ? "nvrtc ok" : "nvrtc missing";
    }
    if (gpu.size() > 60) gpu = gpu.substr(0, 57) + "...";
    return gpu + (nvrtc.empty() ? "" : "; " + nvrtc);
}

// `run --json` on the CPU: interpreter time and the check's relative error.
std::string run_check(const Json& out) {
    std::string s = fmt("%.1f ms on the CPU interpreter", num(out, "time_ms"));
    if (out.contains("check") && out["check"].value("available", false))
        s += ", rel_fro " + fmt("%.1e", num(out["check"], "rel_fro")) + (out["check"].value("pass", false) ? " ok" : " FAIL");
    return s;
}

// "per-round ratio [range] vs NAME" of a bench reply's best peer, or "".
std::string best_peer(const Json& r) {
    if (!r.contains("best_peer") || !r["best_peer"].is_object()) return "";
    const Json& b = r["best_peer"];
    return fmt("%.2fx", num(b, "ratio")) + fmt(" [%.2f", num(b, "ratio_min")) + fmt("-%.2f] ", num(b, "ratio_max")) + "vs " +
           b.value("name", "");
}

std::string semantics(const Json& r) {
    const Json s = r.value("semantics", Json());
    if (!s.is_object()) return "";
    if (!s.value("checked", false)) return "semantics unchecked";
    return s.value("ok", false) ? "" : "semantics FAIL";
}

std::string bench(const Json& out) {
    if (!out.contains("results") || out["results"].empty()) return out.value("error", "");
    const Json& r = out["results"][0];
    if (r.contains("error")) return "";
    const Json ours = r.value("ours", Json::object());
    std::string s = fmt("%.4f ms", num(ours, "median_ms"));
    std::string rt = rate(ours);
    if (!rt.empty()) s += ", " + rt;
    if (std::string b = best_peer(r); !b.empty()) s += ", " + b;
    if (std::string m = semantics(r); !m.empty()) s += ", " + m;
    if (!r.value("target", std::string()).empty()) s += " (" + r["target"].get<std::string>() + ")";
    return s;
}

std::string sweep(const Json& out, bool gpu) {
    const Json configs = out.value("configs", Json::array());
    for (const auto& c : configs)
        if (c.value("best", false)) {
            // sweep rows time under "ours", tune rows under "time"; neither: a CPU-only run.
            std::string t = c.contains("ours")   ? fmt("%.4f ms", num(c["ours"], "median_ms"))
                            : c.contains("time") ? fmt("%.4f ms", num(c["time"], "median_ms"))
                                                 : fmt("%.1f ms CPU", num(c, "cpu_ms"));
            std::string b = best_peer(out.value("peers", Json::object()));
            return "best of " + std::to_string(configs.size()) + ": " + c.value("config", "") + " (" + t + ")" +
                   (b.empty() ? "" : ", " + b);
        }
    if (out.contains("best")) {
        const Json& b = out["best"];
        if (b.is_string()) return "best: " + b.get<std::string>();
        if (b.is_object()) return "best: " + b.value("config", b.dump());
    }
    // Without a GPU a tune has no timing, so no best: report how many configs passed.
    size_t passed = 0;
    for (const auto& c : configs) passed += c.value("status", "") == "passed";
    if (configs.empty()) return "";
    if (passed == 0) return std::string("no config passed") + (gpu ? "" : " on the CPU");
    return std::to_string(passed) + " of " + std::to_string(configs.size()) + " configs passed the check" +
           (gpu ? "" : " (CPU: correctness only)");
}

std::string printed(const Json& out, bool gpu) {
    std::string text = out.value("printed", "");
    if (text.empty() && out.contains("run") && out["run"].is_object()) text = out["run"].value("printed", "");
    size_t lines = 0;
    for (char c : text) lines += c == '\n';
    std::string s = std::to_string(lines) + " lines printed";
    if (!gpu) s += fmt(", %.1f ms CPU", num(out, "time_ms"));
    return s;
}

std::string inspect(const Json& out) {
    const Json ks = out.value("kernels", Json::array());
    if (ks.empty()) return "";
    const Json& k = ks[0];
    auto count = [&](const char* isa, const char* cls) -> int64_t {
        if (!k.contains(isa) || !k[isa].contains("classes")) return -1;
        return k[isa]["classes"][cls].value("count", int64_t{0});
    };
    const char* isa = k.contains("sass") && k["sass"].value("available", false) ? "sass" : "ptx";
    std::string s = k.value("target", "") + " " + (isa[0] == 's' ? "SASS" : "PTX") + ": " +
                    std::to_string(count(isa, "tensor_core")) + " tensor core, " + std::to_string(count(isa, "async_copy")) +
                    " async copy";
    if (k.contains("occupancy") && k["occupancy"].value("fits", false))
        s += fmt("; occupancy %.0f%%", 100 * num(k["occupancy"], "occupancy")) + " (" +
             k["occupancy"].value("limiter", "") + ")";
    return s;
}

}  // namespace

std::string key_figure(KeyFigure kind, const Json& out, bool gpu) {
    try {
        switch (kind) {
            case KeyFigure::Doctor: return out.is_array() ? doctor(out) : "";
            case KeyFigure::RunCheck:
            case KeyFigure::Bench: return out.contains("results") ? bench(out) : run_check(out);
            case KeyFigure::Sweep: return sweep(out, gpu);
            case KeyFigure::Printed: return printed(out, gpu);
            case KeyFigure::Inspect: return inspect(out);
        }
    } catch (const Json::exception&) {
        // A command whose JSON has another shape than expected still has its status.
    }
    return "";
}

std::string json_error(const Json& out) {
    if (!out.is_object()) return "";
    if (out.contains("error") && out["error"].is_string()) {
        std::string e = out["error"].get<std::string>();
        return e.substr(0, e.find('\n'));
    }
    if (out.contains("results"))
        for (const auto& r : out["results"])
            if (r.contains("error")) return r.value("kind", "error") + ": " + r.value("error", "");
    if (out.contains("check") && out["check"].is_object() && !out["check"].value("pass", true))
        return "check failed: " + out["check"].value("error", std::string("exceeds tolerance"));
    return "";
}

}  // namespace tp::tutorial
