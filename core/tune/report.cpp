// A tune report as JSON (the CLI's --json, the cache's file format, the GUI) and CSV, and the
// on-disk cache that stores it.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "tune/tune_internal.h"

namespace tp {

namespace {

constexpr TuneStatus kStatuses[] = {TuneStatus::Kept,   TuneStatus::Rejected, TuneStatus::CompileFailed,
                                    TuneStatus::CannotLaunch, TuneStatus::Compiled, TuneStatus::Failed,
                                    TuneStatus::Wrong,  TuneStatus::Passed,   TuneStatus::Timed};

std::optional<TuneStatus> parse_status(const std::string& s) {
    for (TuneStatus st : kStatuses)
        if (s == tune_status_name(st)) return st;
    return std::nullopt;
}

std::string csv_field(const std::string& s) {
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

}  // namespace

const char* tune_status_name(TuneStatus s) {
    switch (s) {
        case TuneStatus::Kept: return "kept";
        case TuneStatus::Rejected: return "rejected";
        case TuneStatus::CompileFailed: return "compile_failed";
        case TuneStatus::CannotLaunch: return "cannot_launch";
        case TuneStatus::Compiled: return "compiled";
        case TuneStatus::Failed: return "failed";
        case TuneStatus::Wrong: return "wrong";
        case TuneStatus::Passed: return "passed";
        case TuneStatus::Timed: return "timed";
    }
    return "?";
}

std::string default_tune_cache_dir() {
    if (const char* d = std::getenv("TILEPLAY_CACHE_DIR"); d && *d) return d;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tileplay/tune";
    if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tileplay/tune";
    return "/tmp/tileplay-cache/tune";
}

nlohmann::json tune_report_json(const TuneReport& r) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& t : r.results) {
        nlohmann::json c = nlohmann::json::object();
        nlohmann::json order = nlohmann::json::array();
        for (const auto& [k, v] : t.config) order.push_back({k, v});
        nlohmann::json row = {{"config", config_text(t.config)}, {"params", order},
                              {"status", tune_status_name(t.status)}, {"best", t.best}};
        if (!t.kind.empty()) row["kind"] = t.kind;
        if (!t.reason.empty()) row["reason"] = t.reason;
        if (t.threads >= 0) row["threads"] = t.threads;
        if (t.shared_bytes >= 0) row["shared_bytes"] = t.shared_bytes;
        if (t.registers >= 0) row["registers"] = t.registers;
        if (t.spill_bytes >= 0) row["spill_bytes"] = t.spill_bytes;
        if (t.compile_ms > 0) row["compile_ms"] = t.compile_ms;
        if (t.status == TuneStatus::Timed || t.median_ms > 0)
            row["time"] = {{"median_ms", t.median_ms}, {"min_ms", t.min_ms}, {"spread_pct", t.spread_pct},
                           {"tflops", t.tflops}, {"gbps", t.gbps}};
        if (t.rel_fro >= 0) row["rel_fro"] = t.rel_fro;
        if (t.cpu_ms > 0) row["cpu_ms"] = t.cpu_ms;
        rows.push_back(std::move(row));
    }
    nlohmann::json j = {{"ok", r.ok},          {"space", r.space_origin}, {"target", r.target},
                        {"device", r.device},  {"gpu", r.gpu},            {"dry_run", r.dry_run},
                        {"from_cache", r.from_cache}, {"cancelled", r.cancelled}, {"cache_key", r.cache_key},
                        {"seconds", r.seconds}, {"compile_seconds", r.compile_seconds}, {"jobs", r.jobs},
                        {"notes", r.notes},     {"configs", rows}};
    j["best"] = r.best >= 0 ? nlohmann::json(config_text(r.results[r.best].config)) : nlohmann::json(nullptr);
    if (!r.error.empty()) j["error"] = r.error;
    if (!r.diagnostics_text.empty()) j["diagnostics"] = r.diagnostics_text;
    if (!r.peers.is_null()) j["peers"] = r.peers;
    return j;
}

bool tune_report_from_json(const nlohmann::json& j, TuneReport& out) {
    if (!j.is_object() || !j.contains("configs") || !j["configs"].is_array()) return false;
    try {
        TuneReport r;
        r.ok = j.value("ok", false);
        r.space_origin = j.value("space", "");
        r.target = j.value("target", "");
        r.device = j.value("device", "");
        r.gpu = j.value("gpu", false);
        r.dry_run = j.value("dry_run", false);
        r.cancelled = j.value("cancelled", false);
        r.cache_key = j.value("cache_key", "");
        r.seconds = j.value("seconds", 0.0);
        r.compile_seconds = j.value("compile_seconds", 0.0);
        r.jobs = j.value("jobs", 0);
        r.notes = j.value("notes", std::vector<std::string>{});
        r.error = j.value("error", "");
        if (j.contains("peers")) r.peers = j["peers"];
        for (const auto& row : j["configs"]) {
            TuneResult t;
            for (const auto& kv : row.at("params")) t.config.emplace_back(kv.at(0).get<std::string>(), kv.at(1).get<std::string>());
            auto st = parse_status(row.value("status", ""));
            if (!st) return false;
            t.status = *st;
            t.best = row.value("best", false);
            t.kind = row.value("kind", "");
            t.reason = row.value("reason", "");
            t.threads = row.value("threads", int64_t{-1});
            t.shared_bytes = row.value("shared_bytes", int64_t{-1});
            t.registers = row.value("registers", -1);
            t.spill_bytes = row.value("spill_bytes", int64_t{-1});
            t.compile_ms = row.value("compile_ms", 0.0);
            if (row.contains("time")) {
                const auto& tm = row["time"];
                t.median_ms = tm.value("median_ms", 0.0);
                t.min_ms = tm.value("min_ms", 0.0);
                t.spread_pct = tm.value("spread_pct", 0.0);
                t.tflops = tm.value("tflops", 0.0);
                t.gbps = tm.value("gbps", 0.0);
            }
            t.rel_fro = row.value("rel_fro", -1.0);
            t.cpu_ms = row.value("cpu_ms", 0.0);
            if (t.best) r.best = static_cast<int>(r.results.size());
            r.results.push_back(std::move(t));
        }
        out = std::move(r);
        return true;
    } catch (const nlohmann::json::exception&) {
        return false;
    }
}

std::string tune_report_csv(const TuneReport& r) {
    std::ostringstream out;
    out << "rank,config,status,median_ms,min_ms,tflops,gbps,rel_fro,registers,spill_bytes,shared_bytes,threads,"
           "compile_ms,cpu_ms,best,reason\n";
    for (size_t i = 0; i < r.results.size(); ++i) {
        const TuneResult& t = r.results[i];
        out << i + 1 << ',' << csv_field(config_text(t.config)) << ',' << tune_status_name(t.status) << ','
            << t.median_ms << ',' << t.min_ms << ',' << t.tflops << ',' << t.gbps << ',' << t.rel_fro << ','
            << t.registers << ',' << t.spill_bytes << ',' << t.shared_bytes << ',' << t.threads << ',' << t.compile_ms
            << ',' << t.cpu_ms << ',' << (t.best ? 1 : 0) << ','
            << csv_field(t.kind.empty() ? t.reason : t.kind + ": " + t.reason) << '\n';
    }
    return out.str();
}

namespace tune {

std::string cache_path(const std::string& dir, const std::string& key) { return dir + "/" + key + ".json"; }

bool load_cached(const std::string& file, TuneReport& out) {
    // A directory (or a fifo, a device) where the entry belongs is a miss: libstdc++'s filebuf
    // throws on reading a directory, and a fifo would block.
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return false;
    try {
        std::ifstream in(file);
        if (!in) return false;
        nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
        if (j.is_discarded()) return false;  // a torn or foreign file is a miss, not an error
        return tune_report_from_json(j, out);
    } catch (const std::exception&) {
        return false;
    }
}

bool store_cached(const std::string& file, const TuneReport& r, std::string* error) {
    std::error_code ec;
    std::filesystem::path p(file);
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) {
        if (error) *error = "cannot create `" + p.parent_path().string() + "`: " + ec.message();
        return false;
    }
    // Write then rename, so a concurrent reader never sees half a file.
    std::string tmp = file + ".tmp" + std::to_string(::getpid());
    {
        std::ofstream o(tmp);
        o << tune_report_json(r).dump(1) << '\n';
        if (!o) {
            if (error) *error = "cannot write `" + tmp + "`";
            return false;
        }
    }
    std::filesystem::rename(tmp, file, ec);
    if (ec) {
        if (error) *error = "cannot write `" + file + "`: " + ec.message();
        std::filesystem::remove(tmp, ec);
        return false;
    }
    return true;
}

}  // namespace tune

}  // namespace tp
