// A pool of workers for sweeps and tunes: local processes (one per GPU of this host, pinned by
// CUDA_VISIBLE_DEVICES) and remote ones (ssh://), each a WorkerClient. Independent jobs (one
// per configuration) are spread across the members; when a member's worker dies under a job
// the member leaves the pool and the job goes to another, so one lost host or killed process
// costs no configuration. A job that kills two workers is the job's fault and keeps its failure.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tileplay/worker_client.h"

namespace tp {

// `count` local workers with `base`'s options. With several GPUs here they are pinned round
// robin, one GPU each (CUDA_VISIBLE_DEVICES), so `count` 0 means one per GPU; with one GPU or
// none, `count` 0 means a single worker.
std::vector<WorkerOptions> local_workers(int count, const WorkerOptions& base);

class WorkerPool {
public:
    explicit WorkerPool(std::vector<WorkerOptions> members);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    size_t size() const;
    WorkerClient& client(size_t member);
    const std::string& where(size_t member) const;
    bool alive(size_t member) const;

    // Says hello to every member at once (ssh logins overlap) and returns the replies; a member
    // that cannot be reached or refuses the handshake leaves the pool, with a note.
    std::vector<WorkerReply> hello_all();

    // Runs job(client, member, index) once for each index in [0, n), at most one job per member
    // at a time. `done(index)` is called (one at a time) when an index is final. A job whose
    // worker died is run again on another member (the dead one leaves the pool unless it is the
    // last); the second death keeps the job's own failure. `cancel` stops handing out jobs.
    void run(size_t n, const std::function<void(WorkerClient&, size_t member, size_t index)>& job, const std::function<void(size_t index)>& done = {},
             const std::atomic<bool>* cancel = nullptr);

    // One lock per device: members on the same GPU (the same host and PCI bus id, from
    // hello_all) share it, so timed launches never overlap on one GPU.
    std::mutex& device_lock(size_t member);

    // What happened to the pool, for the user: "worker 2 (local #2) died after 3 jobs (exit
    // code 7: ...); its job went to another worker".
    std::vector<std::string> notes() const;
    void shutdown();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tp
