// The PyTorch baseline and probe: python3 runs resources/baselines/torch_baseline.py on the
// kernel's inputs saved as .npy; see baselines.h.
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "baselines/baselines.h"
#include "tensor/npy.h"
#include "worker/subprocess.h"

namespace tp::baselines {

namespace {

bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

// The last non-empty line of a process's output (python tracebacks end with the reason).
std::string last_line(const std::string& s) {
    std::string t = trim(s);
    size_t nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
}

}  // namespace

bool is_torch_spec(const std::string& spec) { return spec.rfind("torch:", 0) == 0; }

std::string torch_script_path() {
    const std::string rel = "/baselines/torch_baseline.py";
    if (const char* env = std::getenv("TILEPLAY_RESOURCES"); env && *env) return std::string(env) + rel;
    char buf[PATH_MAX] = {};
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n > 0) {
        std::string dir = std::filesystem::path(std::string(buf, static_cast<size_t>(n))).parent_path();
        for (const char* up : {"/resources", "/../resources", "/../../resources", "/../../../resources"})
            if (exists(dir + up + rel)) return dir + up + rel;
    }
    return std::string(TILEPLAY_SOURCE_DIR) + "/resources" + rel;
}

ExternalResult run_torch_baseline(const std::string& spec, const BaselineInputs& in, int timeout_s) {
    ExternalResult r;
    std::string expr = trim(spec.substr(6));
    while (!expr.empty() && expr.front() == ' ') expr.erase(0, 1);
    if (expr.empty()) {
        r.why = "`torch:` needs an expression, e.g. `torch: A @ B`";
        return r;
    }
    std::string python = worker::find_executable("python3");
    if (python.empty()) {
        r.why = "python3 is not in PATH";
        return r;
    }
    std::string script = torch_script_path();
    if (!exists(script)) {
        r.why = "cannot find " + script + "; set TILEPLAY_RESOURCES to the resources/ folder";
        return r;
    }
    std::error_code ec;
    std::filesystem::create_directories(in.scratch_dir, ec);
    nlohmann::json dtypes = nlohmann::json::object();
    for (const auto& p : in.kernel->params) {
        if (p.is_output || p.is_scalar) continue;
        const HostTensor& t = in.host->at(p.name);
        std::string why, path = in.scratch_dir + "/" + p.name + ".npy";
        if (!write_npy(path, t, &why)) {
            r.why = "cannot save the inputs for torch: " + why;
            return r;
        }
        dtypes[p.name] = t.dtype.name();
    }
    // Our first output goes beside (not among) the inputs, so torch can compare its result.
    std::vector<std::string> ours_args;
    if (in.ours) {
        for (const auto& p : in.kernel->params) {
            auto it = in.ours->find(p.name);
            if (!p.is_output || p.is_scalar || it == in.ours->end()) continue;
            std::filesystem::create_directories(in.scratch_dir + "/ours", ec);
            std::string why, path = in.scratch_dir + "/ours/" + p.name + ".npy";
            if (write_npy(path, it->second, &why)) ours_args = {"--ours", path, "--ours-dtype", it->second.dtype.name()};
            break;
        }
    }
    // The factory's parameters (is_causal, scale, ...) are names the expression may use.
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [name, value] : in.kernel->bound_params) params[name] = value;
    std::vector<std::string> cmd = {python, script, "--inputs", in.scratch_dir, "--expr", expr, "--dtypes", dtypes.dump(),
                                    "--params", params.dump(), "--warmup", std::to_string(in.opts.warmup), "--iters",
                                    std::to_string(in.opts.iters), "--flush-l2", in.opts.flush_l2 ? "1" : "0"};
    cmd.insert(cmd.end(), ours_args.begin(), ours_args.end());
    worker::CommandResult cr = worker::run_command(cmd, timeout_s * 1000);
    if (!cr.started) {
        r.why = cr.error;
        return r;
    }
    if (cr.timed_out) {
        r.why = "the torch baseline did not finish within " + std::to_string(timeout_s) + " s";
        return r;
    }
    nlohmann::json j = nlohmann::json::parse(last_line(cr.out), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        r.why = "torch_baseline.py failed (" + cr.status.describe() + "): " + last_line(cr.err);
        return r;
    }
    if (!j.value("ok", false)) {
        r.why = j.value("why", std::string("torch_baseline.py gave no reason"));
        return r;
    }
    r.stats = runtime::summarize_times(j.value("times_ms", std::vector<double>{}));
    r.detail = "torch " + j.value("torch", std::string("?")) + " (CUDA " + j.value("cuda", std::string("?")) + ")";
    if (j.contains("vs_ours") && j["vs_ours"].is_object()) {
        const auto& v = j["vs_ours"];
        r.compared = v.value("ok", false);
        r.rel_fro = v.value("rel_fro", -1.0);
        r.max_abs = v.value("max_abs", -1.0);
        r.compare_why = v.value("why", std::string());
    }
    r.ok = r.stats.n > 0;
    if (!r.ok) r.why = "torch_baseline.py returned no times";
    return r;
}

TorchProbe probe_torch(int timeout_s) {
    TorchProbe p;
    std::string python = worker::find_executable("python3");
    if (python.empty()) {
        p.why = "python3 is not in PATH";
        return p;
    }
    const char* code =
        "import json, platform\n"
        "out = {'python': platform.python_version()}\n"
        "try:\n"
        "    import torch\n"
        "    out['torch'] = torch.__version__\n"
        "    out['cuda'] = torch.version.cuda or ''\n"
        "    out['cuda_available'] = bool(torch.cuda.is_available())\n"
        "except Exception as e:\n"
        "    out['why'] = f'{type(e).__name__}: {e}'\n"
        "print(json.dumps(out))\n";
    worker::CommandResult cr = worker::run_command({python, "-c", code}, timeout_s * 1000);
    if (!cr.started || cr.timed_out) {
        p.why = cr.timed_out ? "python3 did not answer within " + std::to_string(timeout_s) + " s" : cr.error;
        return p;
    }
    nlohmann::json j = nlohmann::json::parse(last_line(cr.out), nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
        p.why = "python3 failed: " + last_line(cr.err);
        return p;
    }
    p.python = true;
    p.python_version = j.value("python", "");
    p.torch = j.contains("torch");
    p.torch_version = j.value("torch", "");
    p.torch_cuda = j.value("cuda", "");
    p.cuda_available = j.value("cuda_available", false);
    p.why = j.value("why", "");
    return p;
}

}  // namespace tp::baselines
