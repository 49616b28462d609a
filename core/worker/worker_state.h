// State shared by the worker's request handlers (server.cpp, bench_op.cpp): the device
// context, the loaded kernel, and the heartbeat that keeps the client's watchdog quiet while
// the worker computes on the CPU (compile, interpreter check, PyTorch baseline) but never
// while a kernel runs on the GPU, so a hung kernel is caught.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "baselines/baselines.h"
#include "worker/kernel_session.h"
#include "worker/server.h"

namespace tp::worker {

struct WorkerState {
    ServerOptions opts;
    std::unique_ptr<runtime::DeviceContext> ctx;
    std::string no_device_why;  // set once the device was found missing
    KernelSession session;
    // The torch peer process, started by the first bench that names a torch baseline and kept
    // for the rest of this worker's life (a whole bench suite, sweep or tune).
    std::unique_ptr<baselines::TorchWorker> torch;

    // Opens the device on first use; throws WorkerError("no_device") without one.
    runtime::DeviceContext& device();
};

WorkerState& worker_state();

// The `scalars` object of a run or bench request {NAME: integer} (server.cpp).
std::map<std::string, int64_t> scalar_map(const Json& req);
// The reply to a `load` whose kernel does not compile, diagnostics rendered.
Json compile_failed_reply(const CompileResult& result);

// Emits {"event":"progress","id":id,"stage":stage,"heartbeat":true} every heartbeat_s
// seconds for its lifetime; `fill`, when given, adds fields to each event (e.g. `done` and
// `total` while the interpreter runs blocks).
class Heartbeat {
public:
    Heartbeat(Emitter& em, const Json& id, std::string stage, double period_s, std::function<void(Json&)> fill = {});
    ~Heartbeat();
    Heartbeat(const Heartbeat&) = delete;
    Heartbeat& operator=(const Heartbeat&) = delete;

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

// The bench op: our kernel and the requested baselines, interleaved; returns the reply body.
Json handle_bench(const Json& req, WorkerState& st, Emitter& em);

// Runs on the CPU interpreter (cpu_run.cpp): `load` with "device": "cpu" compiles to Tile IR
// only (no GPU is opened), and `run` of such a kernel checks the memory budget, interprets
// every block and compares with the sample's C++ reference; returns the reply body.
Json handle_cpu_load(const CompileRequest& cr, const Json& req, WorkerState& st, Emitter& em);
Json handle_cpu_run(const Json& req, WorkerState& st, Emitter& em);

}  // namespace tp::worker
