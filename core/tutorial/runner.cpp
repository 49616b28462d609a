// Runs the tutorial: each section's command is a child `tilec` process with a wall-clock limit,
// so a compile error, a faulting kernel or a hang becomes that section's status and the next
// section runs. A section whose sample is not in the samples folder is "missing sample".
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "tileplay/doctor.h"
#include "tileplay/tutorial.h"
#include "tileplay/worker_client.h"
#include "tutorial/key_figures.h"
#include "worker/subprocess.h"

namespace tp {

namespace {

using Json = nlohmann::json;

bool is_file(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_dir(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string find_samples_dir(const std::string& given) {
    if (!given.empty()) return given;
    if (const char* e = std::getenv("TILEPLAY_SAMPLES")) return e;
    if (is_dir(TILEPLAY_SOURCE_DIR "/samples")) return TILEPLAY_SOURCE_DIR "/samples";
    return "samples";
}

// The GPU, or why there is none, as `tilec doctor` sees it.
bool find_gpu(std::string& text) {
    for (const auto& l : doctor_report(false))
        if (l.item.rfind("gpu", 0) == 0) {
            text = l.text;
            if (l.ok) return true;
        }
    if (text.empty()) text = "no CUDA device";
    return false;
}

// `tilec tune` belongs to another part of the tree: use it when this tilec has it, else sweep
// the same axes (-T NAME=V1,V2 becomes -D NAME=V1,V2). Flags the chosen command's help does
// not list are dropped, with their value, so the section runs against either version.
std::vector<std::string> tune_command(const std::string& tilec, const std::vector<std::string>& args) {
    worker::CommandResult h = worker::run_command({tilec, "tune", "--help"}, 10000);
    bool has_tune = h.started && h.status.exited && h.status.code == 0;
    if (!has_tune) h = worker::run_command({tilec, "sweep", "--help"}, 10000);
    std::vector<std::string> out = {has_tune ? "tune" : "sweep"};
    for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        if (!has_tune && a == "-T") a = "-D";
        bool flag = a.size() > 1 && a[0] == '-';
        bool has_value = flag && i + 1 < args.size() && args[i + 1][0] != '-' && a != "--json";
        if (flag && h.out.find(a.size() == 2 ? a + " " : a) == std::string::npos) {
            if (has_value) ++i;
            continue;
        }
        out.push_back(a);
    }
    return out;
}

std::string first_lines(const std::string& s, size_t max_lines, size_t max_chars) {
    std::string out;
    size_t n = 0, b = 0;
    while (b < s.size() && n < max_lines) {
        size_t e = s.find('\n', b);
        if (e == std::string::npos) e = s.size();
        std::string line = s.substr(b, e - b);
        if (!line.empty()) {
            out += (out.empty() ? "" : " | ") + line;
            ++n;
        }
        b = e + 1;
    }
    if (out.size() > max_chars) out = out.substr(0, max_chars - 3) + "...";
    return out;
}

SectionResult run_section(const TutorialSection& sec, const std::string& tilec, const std::string& samples, bool any_gpu,
                          const std::string& gpu_arch, double timeout_s) {
    SectionResult r;
    r.id = sec.id;
    r.title = sec.title;
    // A section for one architecture runs its CPU commands on every other device.
    const bool gpu = any_gpu && (sec.gpu_arch.empty() || sec.gpu_arch == gpu_arch);
    const KeyFigure key = gpu ? sec.key : sec.cpu_key.value_or(sec.key);
    r.device = gpu ? "gpu" : "cpu";
    std::string sample = sec.sample.empty() ? "" : samples + "/" + sec.sample;
    if (!sample.empty() && !is_file(sample)) {
        r.status = "missing sample";
        r.key = "samples/" + sec.sample + " is not there yet";
        return r;
    }
    std::vector<std::string> args;
    for (const auto& a : gpu ? sec.gpu_args : sec.cpu_args) args.push_back(a == "{sample}" ? sample : a);
    if (sec.needs_tune_command) args = tune_command(tilec, args);
    std::vector<std::string> argv = {tilec};
    argv.insert(argv.end(), args.begin(), args.end());

    auto t0 = std::chrono::steady_clock::now();
    worker::CommandResult cr = worker::run_command(argv, static_cast<int>(timeout_s * 1000));
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Json cmd = {{"argv", args}, {"seconds", r.seconds}};
    if (!cr.started) {
        r.status = "failed";
        r.error = "cannot start " + tilec + ": " + cr.error;
    } else if (cr.timed_out) {
        r.status = "timeout";
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", timeout_s);
        r.error = std::string("no result within ") + limit + " s; the child was killed";
    } else if (!cr.status.exited) {
        r.status = "crashed";
        r.error = cr.status.describe() + (cr.err.empty() ? "" : ": " + first_lines(cr.err, 2, 200));
    } else {
        r.status = cr.status.code == 0 ? "passed" : "failed";
        cmd["exit_code"] = cr.status.code;
    }
    if (cr.started && !cr.timed_out) {
        Json out;
        size_t brace = cr.out.find_first_of("{[");
        if (brace != std::string::npos) out = Json::parse(cr.out.substr(brace), nullptr, false);
        if (!out.is_discarded() && !out.is_null()) {
            cmd["output"] = out;
            r.key = tutorial::key_figure(key, out, gpu);
            if (r.status == "failed" && r.error.empty()) r.error = tutorial::json_error(out);
        }
        if (r.status == "failed" && r.error.empty())
            r.error = first_lines(cr.err.empty() ? cr.out : cr.err, 2, 240);
        if (r.status == "failed" && r.error.empty()) r.error = "exit code " + std::to_string(cr.status.code);
    }
    if (!cr.err.empty()) cmd["stderr_tail"] = cr.err.size() > 4000 ? cr.err.substr(cr.err.size() - 4000) : cr.err;
    r.commands.push_back(std::move(cmd));
    return r;
}

}  // namespace

bool TutorialReport::all_present_passed() const {
    for (const auto& s : sections)
        if (s.status != "passed" && s.status != "missing sample") return false;
    return true;
}

Json TutorialReport::to_json() const {
    Json secs = Json::array();
    int passed = 0, missing = 0, other = 0;
    for (const auto& s : sections) {
        secs.push_back({{"id", s.id}, {"title", s.title}, {"device", s.device}, {"status", s.status}, {"seconds", s.seconds}, {"key", s.key},
                        {"error", s.error}, {"commands", s.commands}});
        (s.status == "passed" ? passed : s.status == "missing sample" ? missing : other)++;
    }
    return {{"device", device},   {"device_reason", device_reason}, {"samples_dir", samples_dir},
            {"sections", secs},   {"passed", passed},               {"missing", missing},
            {"not_passed", other}, {"ok", all_present_passed()},    {"timings_label", device == "gpu" ? "GPU" : "CPU"}};
}

TutorialReport run_tutorial(const TutorialOptions& o, const std::function<void(const SectionResult&)>& on_section) {
    TutorialReport rep;
    rep.samples_dir = find_samples_dir(o.samples_dir);
    std::string gpu_text;
    bool gpu = false;
    if (o.device != "cpu") {
        gpu = find_gpu(gpu_text);
        rep.device_reason = gpu ? gpu_text : "no CUDA device: " + gpu_text;
    } else {
        rep.device_reason = "requested";
    }
    if (o.device == "gpu" && !gpu) {
        rep.device = "none";
        return rep;
    }
    rep.device = gpu ? "gpu" : "cpu";
    // The doctor's GPU line names the architecture ("NVIDIA H200, sm_90, 132 SMs, ...").
    std::string gpu_arch;
    if (std::smatch m; gpu && std::regex_search(gpu_text, m, std::regex("sm_[0-9]+a?"))) gpu_arch = m.str();
    std::string tilec = o.tilec.empty() ? default_tilec_path() : o.tilec;
    double timeout = o.timeout_s > 0 ? o.timeout_s : gpu ? 300 : 120;
    for (const auto& sec : tutorial_sections()) {
        if (!o.only.empty()) {
            bool chosen = false;
            for (const auto& id : o.only) chosen |= id == sec.id;
            if (!chosen) continue;
        }
        rep.sections.push_back(run_section(sec, tilec, rep.samples_dir, gpu, gpu_arch, timeout));
        if (on_section) on_section(rep.sections.back());
    }
    return rep;
}

}  // namespace tp
