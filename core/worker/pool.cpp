// WorkerPool (tileplay/worker_pool.h): one thread per member pulls jobs from a shared queue; a
// job whose worker died goes back on the queue for another member.
#include "tileplay/worker_pool.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <thread>

#include "runtime/cuda_driver.h"

namespace tp {

std::vector<WorkerOptions> local_workers(int count, const WorkerOptions& base) {
    int gpus = runtime::cuda_device_count();
    if (count <= 0) count = gpus > 1 ? gpus : 1;
    std::vector<WorkerOptions> out;
    for (int i = 0; i < count; ++i) {
        WorkerOptions w = base;
        w.where = "local #" + std::to_string(i + 1);
        if (gpus > 1) {
            // Pinned by the environment rather than `--device`: the torch worker it starts
            // for the peers inherits it and times on the same GPU.
            int gpu = i % gpus;
            w.command = {"env", "CUDA_VISIBLE_DEVICES=" + std::to_string(gpu), default_tilec_path(), "worker"};
            w.where += " (GPU " + std::to_string(gpu) + ")";
        }
        out.push_back(std::move(w));
    }
    return out;
}

struct WorkerPool::Impl {
    struct Member {
        std::unique_ptr<WorkerClient> client;
        std::string where, device_key;
        bool alive = true;
        int jobs_done = 0;
    };
    std::vector<Member> members;
    std::map<std::string, std::unique_ptr<std::mutex>> device_locks;
    mutable std::mutex m;
    std::vector<std::string> notes;

    int alive_count() const {
        int n = 0;
        for (const auto& mb : members) n += mb.alive;
        return n;
    }
};

WorkerPool::WorkerPool(std::vector<WorkerOptions> members) : impl_(std::make_unique<Impl>()) {
    for (auto& o : members) {
        Impl::Member mb;
        mb.where = o.where;
        mb.device_key = o.where;
        mb.client = std::make_unique<WorkerClient>(std::move(o));
        impl_->members.push_back(std::move(mb));
    }
}

WorkerPool::~WorkerPool() { shutdown(); }

size_t WorkerPool::size() const { return impl_->members.size(); }
WorkerClient& WorkerPool::client(size_t i) { return *impl_->members.at(i).client; }
const std::string& WorkerPool::where(size_t i) const { return impl_->members.at(i).where; }
bool WorkerPool::alive(size_t i) const {
    std::lock_guard<std::mutex> l(impl_->m);
    return impl_->members.at(i).alive;
}

std::vector<WorkerReply> WorkerPool::hello_all() {
    Impl& p = *impl_;
    std::vector<WorkerReply> replies(p.members.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < p.members.size(); ++i) threads.emplace_back([&, i] { replies[i] = p.members[i].client->hello(); });
    for (auto& t : threads) t.join();
    for (size_t i = 0; i < p.members.size(); ++i) {
        Impl::Member& mb = p.members[i];
        const WorkerReply& r = replies[i];
        if (!r.ok) {
            // The first member stays even when unreachable: its failure is then the command's.
            if (i > 0 || p.members.size() > 1) {
                mb.alive = false;
                p.notes.push_back("worker " + std::to_string(i + 1) + " (" + mb.where + ") left the pool at start: " + r.error);
            }
            continue;
        }
        // Workers on one GPU share a lock: the same host (as the worker names it: two Slurm
        // jobs may land on one node) and the same PCI bus id.
        const Json& d = r.body["device"];
        std::string host = r.body.value("host", mb.where);
        mb.device_key = d.is_object() ? host + " " + d.value("pci_bus_id", std::string()) : mb.where;
    }
    return replies;
}

std::mutex& WorkerPool::device_lock(size_t member) {
    std::lock_guard<std::mutex> l(impl_->m);
    auto& slot = impl_->device_locks[impl_->members.at(member).device_key];
    if (!slot) slot = std::make_unique<std::mutex>();
    return *slot;
}

void WorkerPool::run(size_t n, const std::function<void(WorkerClient&, size_t, size_t)>& job, const std::function<void(size_t)>& done,
                     const std::atomic<bool>* cancel) {
    Impl& p = *impl_;
    struct Item {
        size_t index;
        int deaths;  // workers this job has seen die under it
    };
    std::deque<Item> queue;
    for (size_t i = 0; i < n; ++i) queue.push_back({i, 0});
    size_t in_flight = 0;
    std::condition_variable cv;
    std::mutex done_m;
    auto finish = [&](size_t index) {
        std::lock_guard<std::mutex> l(done_m);
        if (done) done(index);
    };
    auto loop = [&](size_t mi) {
        Impl::Member& mb = p.members[mi];
        for (;;) {
            Item it;
            {
                std::unique_lock<std::mutex> l(p.m);
                // A job in flight elsewhere may still come back: wait for it before leaving.
                cv.wait(l, [&] { return !mb.alive || !queue.empty() || in_flight == 0 || (cancel && cancel->load()); });
                if (!mb.alive || queue.empty() || (cancel && cancel->load())) return;
                it = queue.front();
                queue.pop_front();
                ++in_flight;
            }
            int before = mb.client->deaths();
            job(*mb.client, mi, it.index);
            bool died = mb.client->deaths() > before;
            bool final_result = true;
            {
                std::lock_guard<std::mutex> l(p.m);
                --in_flight;
                if (!died) {
                    ++mb.jobs_done;
                } else if (p.alive_count() > 1) {
                    // This member leaves; its job goes to another unless it already killed one.
                    mb.alive = false;
                    const WorkerReply& d = mb.client->last_death();
                    bool again = it.deaths == 0;
                    p.notes.push_back("worker " + std::to_string(mi + 1) + " (" + mb.where + ") died after " + std::to_string(mb.jobs_done) +
                                      " jobs: " + d.error +
                                      (again ? "; its job went to another worker" : "; its job had killed a worker before and keeps this failure"));
                    if (again) {
                        queue.push_front({it.index, it.deaths + 1});
                        final_result = false;
                    }
                } else {
                    // The last member restarts its worker for the next job, as a lone worker does.
                    ++mb.jobs_done;
                }
            }
            cv.notify_all();
            if (final_result) finish(it.index);
        }
    };
    std::vector<std::thread> threads;
    for (size_t i = 0; i < p.members.size(); ++i)
        if (p.members[i].alive) threads.emplace_back(loop, i);
    for (auto& t : threads) t.join();
}

std::vector<std::string> WorkerPool::notes() const {
    std::lock_guard<std::mutex> l(impl_->m);
    return impl_->notes;
}

void WorkerPool::shutdown() {
    for (auto& mb : impl_->members) mb.client->shutdown();
}

}  // namespace tp
