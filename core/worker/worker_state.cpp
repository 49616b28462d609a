// The worker's device, loaded kernel and heartbeat; see worker_state.h.
#include "worker/worker_state.h"

#include <chrono>

namespace tp::worker {

runtime::DeviceContext& WorkerState::device() {
    if (ctx) return *ctx;
    std::string why;
    if (runtime::cuda_device_count(&why) == 0)
        throw WorkerError("no_device", "no CUDA device: " + why + "; run on the CPU with `tilec run --device cpu`");
    ctx = std::make_unique<runtime::DeviceContext>(opts.device);
    return *ctx;
}

WorkerState& worker_state() {
    static WorkerState st;
    return st;
}

Heartbeat::Heartbeat(Emitter& em, const Json& id, std::string stage, double period_s, std::function<void(Json&)> fill) {
    if (period_s <= 0) return;
    thread_ = std::thread([this, &em, id, stage = std::move(stage), period_s, fill = std::move(fill)] {
        std::unique_lock<std::mutex> lock(mu_);
        auto period = std::chrono::milliseconds(static_cast<int64_t>(period_s * 1000));
        while (!cv_.wait_for(lock, period, [this] { return stop_; })) {
            Json event = {{"event", "progress"}, {"id", id}, {"stage", stage}, {"heartbeat", true}};
            if (fill) fill(event);
            em.emit(event);
        }
    });
}

Heartbeat::~Heartbeat() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

}  // namespace tp::worker
