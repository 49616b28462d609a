// The `tilec worker` request loop and its hello / load / run / shutdown handlers; see
// server.h and docs/worker-protocol.md.
#include "worker/server.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "runtime/cuda_driver.h"
#include "runtime/nvrtc.h"
#include "tileplay/worker_client.h"
#include "tensor/npy.h"
#include "worker/json_limits.h"
#include "worker/launch_args.h"
#include "worker/timeline_capture.h"
#include "worker/worker_state.h"

namespace tp::worker {

std::map<std::string, int64_t> scalar_map(const Json& j) {
    std::map<std::string, int64_t> m;
    if (!j.contains("scalars")) return m;
    if (!j["scalars"].is_object()) throw WorkerError("bad_request", "`scalars` must be an object of NAME: integer");
    for (auto it = j["scalars"].begin(); it != j["scalars"].end(); ++it) {
        if (!it.value().is_number_integer()) throw WorkerError("bad_request", "scalar `" + it.key() + "` must be an integer");
        m[it.key()] = it.value().get<int64_t>();
    }
    return m;
}

Json compile_failed_reply(const CompileResult& result) {
    std::string diags = result.render_diagnostics(false);
    if (result.internal_error) diags += std::string("internal compiler error: ") + result.internal_error->what();
    return {{"ok", false}, {"kind", "compile_failed"}, {"error", "the kernel does not compile"}, {"diagnostics", diags}};
}

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::vector<std::pair<std::string, std::string>> string_pairs(const Json& j, const char* key) {
    std::vector<std::pair<std::string, std::string>> v;
    if (!j.contains(key)) return v;
    const Json& o = j[key];
    if (!o.is_object()) throw WorkerError("bad_request", std::string("`") + key + "` must be an object of NAME: VALUE");
    for (auto it = o.begin(); it != o.end(); ++it)
        v.emplace_back(it.key(), it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    return v;
}


Json handle_hello(WorkerState& st) {
    char host[256] = "";
    ::gethostname(host, sizeof host - 1);
    Json j = {{"ok", true}, {"version", TILEPLAY_VERSION}, {"protocol", kWorkerProtocol}, {"pid", static_cast<int>(::getpid())}, {"host", host}};
    std::string why;
    auto info = runtime::query_device(st.opts.device, &why);
    if (info) {
        // "target" is what `--arch auto` compiles for (sm_90a on Hopper); "arch" the plain one.
        j["device"] = {{"name", info->name},           {"target", info->best_target()}, {"arch", info->target()},
                       {"sm_count", info->sm_count},   {"total_bytes", info->total_bytes},
                       {"l2_bytes", info->l2_bytes},   {"max_smem_optin", info->max_smem_optin},
                       {"pci_bus_id", info->pci_bus_id}};
        j["driver"] = runtime::cuda_driver_version();
    } else {
        j["device"] = nullptr;
        j["why"] = why;
    }
    return j;
}

Json handle_load(const Json& req, WorkerState& st, Emitter& em) {
    CompileRequest cr;
    cr.path = req.value("path", "");
    cr.source = req.value("source", "");
    cr.kernel = req.value("kernel", "");
    if (cr.path.empty() && cr.source.empty()) throw WorkerError("bad_request", "`load` needs `path` or `source`");
    cr.defines = string_pairs(req, "defines");
    cr.fallback_defines = string_pairs(req, "fallback_defines");
    cr.pass_configs = string_pairs(req, "pass_configs");
    const std::string where = req.value("device", "gpu");
    if (where == "cpu") return handle_cpu_load(cr, req, st, em);
    if (where != "gpu") throw WorkerError("bad_request", "`device` must be \"gpu\" or \"cpu\", not \"" + where + "\"");
    runtime::DeviceContext& dev = st.device();  // before compiling: no device, no point
    std::string target = req.value("target", "auto");
    cr.target = target == "auto" || target.empty() ? dev.info().best_target() : target;
    // NVRTC may not know the newest architectures; sm_90 code runs on later GPUs too.
    bool known = false;
    for (const auto& t : supported_targets()) known |= t == cr.target;
    if (!known && (target == "auto" || target.empty())) cr.target = "sm_90";

    auto t0 = Clock::now();
    auto result = std::make_shared<CompileResult>();
    {
        Heartbeat hb(em, req["id"], "compile", st.opts.heartbeat_s);
        *result = compile(cr);
    }
    double compile_ms = ms_since(t0);
    if (!result->ok) {
        return compile_failed_reply(*result);
    }
    st.session = KernelSession{};
    st.session.compiled = result;
    try {
        st.session.kernel = std::make_unique<runtime::LoadedKernel>(result->cubin, kernel_names(result->kernel));
    } catch (const runtime::CudaError& e) {
        if (e.sticky) throw;
        st.session.compiled.reset();
        throw WorkerError("load_failed", std::string("cannot load the cubin: ") + e.what());
    }
    st.session.attrs = st.session.kernel->attributes();
    st.session.device_sm_count = dev.info().sm_count;
    return {{"ok", true}, {"kernel", st.session.describe()}, {"target", cr.target}, {"compile_ms", compile_ms}};
}

Json handle_run(const Json& req, WorkerState& st, Emitter& em) {
    if (st.session.cpu) return handle_cpu_run(req, st, em);
    st.device();
    if (!st.session.kernel) throw WorkerError("bad_request", "no kernel is loaded; send `load` first");
    uint64_t seed = req.value("seed", uint64_t{0});
    PreparedArgs a;
    {
        Heartbeat hb(em, req["id"], "inputs", st.opts.heartbeat_s);
        a = prepare_args(st.session, seed, scalar_map(req), req.value("inputs_dir", ""));
    }
    TimelineCapture timeline = start_timeline(st.session);  // nothing unless compiled with tp.timeline
    auto t0 = Clock::now();
    launch_all(*st.session.kernel, a);
    runtime::cu_check(runtime::cuda_driver().cuCtxSynchronize(), "kernel execution");
    double ms = ms_since(t0);
    auto outs = download_outputs(st.session, a);
    Json j = {{"ok", true}, {"launch", a.launch.describe()}, {"wall_ms", ms}};
    if (Json t = finish_timeline(timeline, st.session); !t.is_null()) j["timeline"] = std::move(t);
    if (!timeline.note.empty()) j["timeline_note"] = timeline.note;
    if (std::string printed = take_printed(); !printed.empty()) j["printed"] = printed;
    std::string dir = req.value("outputs_dir", "");
    if (!dir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        Json files = Json::array();
        for (const auto& [name, t] : a.host) {
            auto o = outs.find(name);
            const HostTensor& h = o != outs.end() ? o->second : t;
            std::string path = dir + "/" + name + ".npy", why;
            if (!write_npy(path, h, &why)) throw WorkerError("io_error", "cannot write " + path + ": " + why);
            files.push_back({{"name", name}, {"path", path}, {"is_output", o != outs.end()},
                             {"dtype", h.dtype.name()}, {"shape", h.shape}});
        }
        j["files"] = files;
    }
    if (req.value("check", true)) {
        Heartbeat hb(em, req["id"], "check", st.opts.heartbeat_s);
        j["check"] = check_against_interpreter(st.session, a, outs, req.value("check_blocks", 64), seed);
    }
    return j;
}

int g_capture_fd = -1;
off_t g_capture_read = 0;

}  // namespace

std::FILE* capture_stdout() {
    std::fflush(stdout);
    int proto = ::dup(STDOUT_FILENO);
    if (proto < 0) return nullptr;
    std::FILE* out = ::fdopen(proto, "w");
    std::FILE* cap = std::tmpfile();
    if (!out || !cap || ::dup2(::fileno(cap), STDOUT_FILENO) < 0) {
        if (out) std::fclose(out);
        else ::close(proto);
        if (cap) std::fclose(cap);
        return nullptr;
    }
    g_capture_fd = ::fileno(cap);  // cap stays open for the life of the process
    g_capture_read = 0;
    return out;
}

std::string take_printed(size_t limit) {
    if (g_capture_fd < 0) return {};
    std::fflush(stdout);
    off_t end = ::lseek(g_capture_fd, 0, SEEK_END);
    if (end <= g_capture_read) return {};
    size_t n = static_cast<size_t>(end - g_capture_read);
    std::string text(std::min(n, limit), '\0');
    ssize_t got = ::pread(g_capture_fd, text.data(), text.size(), g_capture_read);
    text.resize(got > 0 ? static_cast<size_t>(got) : 0);
    if (n > limit) text += "\n[" + std::to_string(n - limit) + " more bytes of printed output dropped]\n";
    // Start the file over so a kernel that prints in every benchmark launch cannot fill the disk.
    if (::ftruncate(g_capture_fd, 0) == 0 && ::lseek(g_capture_fd, 0, SEEK_SET) == 0) g_capture_read = 0;
    else g_capture_read = end;
    return text;
}

void Emitter::emit(const Json& j) {
    std::string s = j.dump(-1, ' ', false, Json::error_handler_t::replace);
    std::lock_guard<std::mutex> lock(mu_);
    std::fputs(s.c_str(), out_);
    std::fputc('\n', out_);
    std::fflush(out_);
}

namespace {

// Test hook: with TILEPLAY_WORKER_EXIT_AFTER=K the worker exits (code 7, no reply) at its
// (K+1)-th `load`, after serving K configurations: how the pool tests kill a worker mid-sweep
// at a known point instead of racing a signal against it. With `K:PATH` only the one worker
// that creates PATH first does, so exactly one worker of a pool dies.
void exit_if_test_hook_says() {
    static int loads = 0;
    static int armed = -1;  // not yet decided
    const char* env = std::getenv("TILEPLAY_WORKER_EXIT_AFTER");
    if (!env || !*env) return;
    std::string spec = env;
    size_t colon = spec.find(':');
    if (armed < 0) {
        armed = 1;
        if (colon != std::string::npos) {
            int fd = ::open(spec.substr(colon + 1).c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
            armed = fd >= 0;
            if (fd >= 0) ::close(fd);
        }
    }
    if (!armed || loads++ < std::atoi(spec.substr(0, colon).c_str())) return;
    std::fprintf(stderr, "tilec worker: exiting after %d loads (TILEPLAY_WORKER_EXIT_AFTER)\n", loads - 1);
    std::fflush(stderr);
    std::_Exit(7);
}

}  // namespace

void handle_line(const std::string& line, Emitter& em, int& exit_code) {
    WorkerState& st = worker_state();
    if (line.find_first_not_of(" \t\r") == std::string::npos) return;
    Json id = nullptr;
    auto fail = [&](const std::string& kind, const std::string& msg) {
        em.emit({{"id", id}, {"ok", false}, {"kind", kind}, {"error", msg}});
    };
    if (json_nesting(line) > kMaxJsonDepth)
        return fail("bad_request", "request nests JSON deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    Json req = Json::parse(line, nullptr, false);
    if (req.is_discarded()) return fail("bad_request", "request is not valid JSON: `" + line.substr(0, 120) + "`");
    if (!req.is_object()) return fail("bad_request", "request must be a JSON object");
    if (req.contains("id")) id = req["id"];
    if (!req.contains("op") || !req["op"].is_string())
        return fail("bad_request", "request has no `op`; expected one of hello, load, run, bench, shutdown");
    std::string op = req["op"];
    try {
        Json reply;
        if (op == "hello") reply = handle_hello(st);
        else if (op == "load") {
            exit_if_test_hook_says();
            reply = handle_load(req, st, em);
        } else if (op == "run")
            reply = handle_run(req, st, em);
        else if (op == "bench") {
            if (st.session.cpu) throw WorkerError("bad_request", "the kernel was loaded for the CPU interpreter, which is not timed; load it for the GPU to benchmark it");
            reply = handle_bench(req, st, em);
        }
        else if (op == "shutdown") {
            reply = {{"ok", true}};
            exit_code = 0;
        } else {
            return fail("bad_request", "unknown op `" + op + "`; expected one of hello, load, run, bench, shutdown");
        }
        reply["id"] = id;
        em.emit(reply);
    } catch (const WorkerError& e) {
        fail(e.kind, e.what());
    } catch (const runtime::CudaError& e) {
        const KernelInfo* k = st.session.compiled ? &st.session.compiled->kernel : nullptr;
        std::string what = e.what();
        if (k) what += " (kernel `" + k->name + "`)";
        Json r = {{"id", id}, {"ok", false}, {"kind", e.code == runtime::CUDA_ERROR_NO_DEVICE ? "no_device" : "cuda_error"},
                  {"error", what}, {"cuda_error", e.code}, {"fatal", e.sticky}};
        // A failed T.device_assert prints its message, then traps: the message is the point.
        if (std::string printed = take_printed(); !printed.empty()) r["printed"] = printed;
        em.emit(r);
        if (e.sticky) {
            // The context is lost; every later call would fail. Say so on stderr too and go.
            std::fprintf(stderr, "tilec worker: %s; exiting\n", what.c_str());
            exit_code = 3;
        }
    } catch (const std::bad_alloc&) {
        fail("out_of_memory", "the worker ran out of host memory");
    } catch (const Json::exception& e) {
        fail("bad_request", std::string("malformed field: ") + e.what());
    } catch (const std::exception& e) {
        fail("internal_error", e.what());
    }
}

int serve(std::FILE* in, std::FILE* out, const ServerOptions& opts) {
    worker_state().opts = opts;
    Emitter em(out);
    std::string line;
    int exit_code = -1;
    int c;
    while (exit_code < 0 && (c = std::fgetc(in)) != EOF) {
        if (c != '\n') {
            line.push_back(static_cast<char>(c));
            continue;
        }
        handle_line(line, em, exit_code);
        line.clear();
    }
    if (exit_code < 0 && !line.empty()) handle_line(line, em, exit_code);
    return exit_code < 0 ? 0 : exit_code;
}

}  // namespace tp::worker
