// State shared by the worker's request handlers (server.cpp, bench_op.cpp): the device
// context, the loaded kernel, and the heartbeat that keeps the client's watchdog quiet while
// the worker computes on the CPU (compile, interpreter check, PyTorch baseline) but never
// while a kernel runs on the GPU, so a hung kernel is caught.
#pragma once

#include <condition_variable>
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

// Emits {"event":"progress","id":id,"stage":stage,"heartbeat":true} every heartbeat_s
// seconds for its lifetime.
class Heartbeat {
public:
    Heartbeat(Emitter& em, const Json& id, std::string stage, double period_s);
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

}  // namespace tp::worker
