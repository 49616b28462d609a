// Text rows and the Markdown table of `tilec bench`; see bench_report.h.
#include "bench_report.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tileplay/worker_client.h"

namespace tilec {

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

std::string rate(const Json& stats) {
    std::string r = tp::rate_text(num(stats, "tflops"), num(stats, "gbps"));
    return r.empty() ? "-" : r;
}

std::string rel(const Json& v) { return v.is_number() ? fmt("%.1e", v.get<double>()) : std::string("nan"); }

// The sample's file name (two files may hold factories of one name), and the variant.
std::string name_of(const Json& r) {
    std::string n = std::filesystem::path(r.value("file", "")).stem().string();
    if (n.empty()) n = r.value("kernel", std::string("?"));
    if (r.contains("variant")) n += " [" + r["variant"].get<std::string>() + "]";
    return n;
}

// "codegen ok 2.5e-05": the interpreter check of the first output.
std::string codegen_text(const Json& r) {
    if (!r.contains("check")) return "codegen -";
    const Json& c = r["check"];
    std::string s = std::string("codegen ") + (c.value("ok", false) ? "ok" : "FAIL");
    if (c.contains("outputs") && !c["outputs"].empty()) s += " " + rel(c["outputs"][0]["rel_fro"]);
    else if (c.contains("error")) s += " (" + c["error"].get<std::string>() + ")";
    return s;
}

// "semantics ok 1.2e-04 vs 2 peers", "semantics FAIL 1.8e-01", or why it did not run.
std::string semantics_text(const Json& r) {
    if (!r.contains("semantics") || r["semantics"].is_null()) return "semantics -";
    const Json& s = r["semantics"];
    if (!s.value("checked", false)) return "semantics unchecked (" + s.value("why", std::string("?")) + ")";
    size_t n = s.value("against", Json::array()).size();
    return std::string("semantics ") + (s.value("ok", false) ? "ok " : "FAIL ") + rel(s["rel_fro"]) + " vs " +
           (n == 1 ? s["against"][0].get<std::string>() : std::to_string(n) + " peers");
}

std::string ratio_text(const Json& b) {
    return fmt("%.2fx", num(b, "ratio")) + fmt(" [%.2f", num(b, "ratio_min")) + fmt("-%.2f]", num(b, "ratio_max"));
}

std::string clock_text(const Json& r) {
    const Json c = r.value("conditions", Json::object());
    if (!c.value("available", false)) return "";
    const Json& sm = c["sm_clock_mhz"];
    return fmt("SM %.0f", num(sm, "min")) + fmt("-%.0f MHz", num(sm, "max")) + fmt(", %.0f W", num(c["power_w"], "mean"));
}

}  // namespace

bool bench_record_failed(const Json& r) {
    if (r.contains("error")) return true;
    if (r.contains("check") && !r["check"].value("ok", false)) return true;
    const Json s = r.value("semantics", Json());
    return s.is_object() && s.value("checked", false) && !s.value("ok", false);
}

std::string bench_row_text(const Json& r) {
    std::string name = name_of(r);
    char head[512];
    if (r.contains("error")) {
        std::snprintf(head, sizeof head, "%-24s %-28s FAILED (%s): %s", name.c_str(), r.value("config", "").c_str(),
                      r.value("kind", "error").c_str(), r["error"].get<std::string>().c_str());
        return head;
    }
    const Json& o = r["ours"];
    std::snprintf(head, sizeof head, "%-24s %-28s %9.4f ms %14s  %s  %s", name.c_str(), r.value("config", "").c_str(),
                  num(o, "median_ms"), rate(o).c_str(), codegen_text(r).c_str(), semantics_text(r).c_str());
    std::string s = head;
    if (r.contains("best_peer") && r["best_peer"].is_object())
        s += "  | best peer " + r["best_peer"].value("name", "") + ": " + ratio_text(r["best_peer"]);
    for (const auto& b : r.value("baselines", Json::array())) {
        s += "\n      " + b.value("name", "");
        if (!b.value("ok", false)) {
            s += "  " + b.value("why", "");
        } else {
            s += fmt("  %.4f ms ", num(b["stats"], "median_ms")) + ratio_text(b);
            if (b.contains("compile_ms")) s += fmt(", compiled in %.1f s", num(b, "compile_ms") / 1000);
        }
        const Json v = b.value("vs_ours", Json());
        if (v.is_object() && v.contains("agree"))
            s += std::string(v["agree"].get<bool>() ? "  agrees with ours" : "  DIFFERS from ours") + ": rel_fro " + rel(v["rel_fro"]);
        else if (v.is_object() && v.contains("why"))
            s += "  not compared: " + v["why"].get<std::string>();
    }
    if (std::string c = clock_text(r); !c.empty()) s += "\n      " + c;
    return s;
}

std::string bench_markdown(const Json& report, const std::string& command_line) {
    std::ostringstream t;
    const Json& dev = report.value("device", Json::object());
    std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    t << "Measured on " << dev.value("name", std::string("?")) << " (" << dev.value("arch", dev.value("target", std::string("?")))
      << ", " << dev.value("sm_count", 0) << " SMs), " << date << ", `" << command_line << "`. Each ratio is the best peer's time over"
      << " ours, the median of per-round ratios (our kernel and each peer alternate in rounds; the range in brackets), L2"
      << " flushed before every timed launch; SM clock and board power as NVML read them during the rounds.\n\n";
    t << "| sample | config | ours | rate | best peer | vs best peer | checks | GPU during the run |\n";
    t << "| --- | --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& r : report.value("results", Json::array())) {
        t << "| " << name_of(r) << " | " << r.value("target", std::string()) << " " << r.value("config", "") << " | ";
        if (r.contains("error")) {
            t << "FAILED: " << r["error"].get<std::string>() << " | | | | | |\n";
            continue;
        }
        const Json& o = r["ours"];
        t << fmt("%.4f ms", num(o, "median_ms")) << " | " << rate(o) << " | ";
        if (r.contains("best_peer") && r["best_peer"].is_object()) {
            const Json& b = r["best_peer"];
            t << "`" << b.value("name", "") << "` " << fmt("%.4f ms", num(b, "median_ms")) << " | " << ratio_text(b) << " | ";
        } else {
            t << "none ran | | ";
        }
        t << codegen_text(r) << ", " << semantics_text(r) << " | " << clock_text(r) << " |\n";
    }
    return t.str();
}

bool write_markdown(const std::string& path, const std::string& table, std::string& why) {
    const std::string begin = "<!-- bench-table:begin -->", end = "<!-- bench-table:end -->";
    std::string text;
    if (std::ifstream in(path); in) {
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }
    size_t b = text.find(begin), e = text.find(end);
    std::string out = b != std::string::npos && e != std::string::npos && e > b
                          ? text.substr(0, b + begin.size()) + "\n" + table + text.substr(e)
                          : table;
    std::ofstream f(path, std::ios::trunc);
    if (!(f << out)) {
        why = "cannot write " + path;
        return false;
    }
    return true;
}

}  // namespace tilec
