// The torch worker's client and the python3 + torch probe; see baselines.h. The worker is
// resources/baselines/torch_worker.py, one JSON object a line each way.
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "baselines/baselines.h"
#include "worker/subprocess.h"

namespace tp::baselines {

namespace {

using Json = nlohmann::json;

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

// $TILEPLAY_TORCH_WORKER as argv (split on spaces), else python3 torch_worker.py.
std::vector<std::string> worker_command(std::string& why) {
    if (const char* env = std::getenv("TILEPLAY_TORCH_WORKER"); env && *env) {
        std::vector<std::string> argv;
        std::stringstream in(env);
        for (std::string w; in >> w;) argv.push_back(w);
        return argv;
    }
    std::string python = worker::find_executable("python3");
    if (python.empty()) {
        why = "python3 is not in PATH";
        return {};
    }
    std::string script = torch_worker_path();
    if (!exists(script)) {
        why = "cannot find " + script + "; set TILEPLAY_RESOURCES to the resources/ folder";
        return {};
    }
    return {python, "-u", script};
}

}  // namespace

std::string torch_worker_path() {
    const std::string rel = "/baselines/torch_worker.py";
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

struct TorchWorker::Impl {
    std::unique_ptr<worker::Subprocess> proc;  // null until started, reset when it dies
    bool started = false;
    int next_id = 1;
    std::string detail, start_why;
};

TorchWorker::TorchWorker() : impl_(std::make_unique<Impl>()) {}

TorchWorker::~TorchWorker() { stop(); }

const std::string& TorchWorker::detail() const { return impl_->detail; }

bool TorchWorker::ensure_started(std::string& why) {
    Impl& m = *impl_;
    if (m.started && m.proc && m.proc->running()) return true;
    stop();
    std::vector<std::string> argv = worker_command(why);
    if (argv.empty()) return false;
    m.proc = std::make_unique<worker::Subprocess>();
    if (!m.proc->start(argv, &why)) {
        m.proc.reset();
        why = "cannot start the torch worker: " + why;
        return false;
    }
    m.started = true;
    // Importing torch and creating a CUDA context takes seconds on a cold machine.
    Json hello = call({{"op", "hello"}}, 120000);
    if (!hello.value("ok", false)) {
        why = hello.value("why", std::string("the torch worker did not answer hello"));
        stop();
        return false;
    }
    m.detail = "torch " + hello.value("torch", std::string("?")) + " (CUDA " + hello.value("cuda", std::string("?")) + ")";
    return true;
}

Json TorchWorker::call(Json req, int timeout_ms) {
    Impl& m = *impl_;
    if (!m.started || !m.proc) return {{"ok", false}, {"why", "the torch worker is not running"}};
    int id = m.next_id++;
    req["id"] = id;
    if (!m.proc->write(req.dump() + "\n")) {
        std::string err = last_line(m.proc->stderr_text());
        stop();
        return {{"ok", false}, {"why", "the torch worker exited" + (err.empty() ? "" : ": " + err)}};
    }
    for (;;) {
        std::string line;
        worker::Subprocess::Read r = m.proc->read_line(line, timeout_ms);
        if (r == worker::Subprocess::Read::Timeout) {
            stop();
            return {{"ok", false}, {"why", "the torch worker did not answer within " + std::to_string(timeout_ms / 1000) + " s"}};
        }
        if (r == worker::Subprocess::Read::Eof) {
            std::string err = last_line(m.proc->stderr_text());
            stop();
            return {{"ok", false}, {"why", "the torch worker exited" + (err.empty() ? "" : ": " + err)}};
        }
        Json j = Json::parse(line, nullptr, false);
        // Anything else on stdout (a library's print) is not a reply; the reply carries our id.
        if (j.is_object() && j.contains("id") && j["id"] == id) return j;
    }
}

void TorchWorker::stop() {
    Impl& m = *impl_;
    if (m.proc && m.proc->running()) {
        m.proc->write(Json{{"op", "shutdown"}}.dump() + "\n");
        m.proc->close_stdin();
        m.proc->wait(2000);  // kills it after that
    }
    m.proc.reset();
    m.started = false;
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
    Json j = Json::parse(last_line(cr.out), nullptr, false);
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
