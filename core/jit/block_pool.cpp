// The process-wide block workers and watchdog of the JIT (block_pool.h). One job at a time: a
// second run that finds the pool busy runs on its own thread alone. The threads are never
// joined (they sleep on a condition variable until the process exits).
#include "jit/block_pool.h"

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace tp::jit {

namespace {

using Clock = std::chrono::steady_clock;

struct Job {
    const std::function<void()>* work = nullptr;
    int want = 0;    // helpers that may join
    int joined = 0;  // helpers that did
    int active = 0;  // helpers still inside work
    bool open = true;
};

struct Watch {
    std::atomic<uint8_t>* stop;
    Clock::time_point deadline;
    bool has_deadline;
    const std::atomic<bool>* cancel;
    uint8_t timeout_code, cancel_code;
};

struct Pool {
    std::mutex mu;
    std::condition_variable work_cv, done_cv;
    Job* job = nullptr;
    uint64_t generation = 0;
    int threads = 0;

    std::mutex watch_mu;
    std::condition_variable watch_cv;
    std::map<uint64_t, Watch> watches;
    uint64_t next_ticket = 1;
    bool monitor_started = false;
    bool monitor_asleep = false;   // waiting without a timeout: a new watch must wake it
    Clock::time_point poll_until;  // the monitor polls (every 10 ms) until then, watched or not

    void helper() {
        std::unique_lock<std::mutex> lock(mu);
        uint64_t seen = 0;
        for (;;) {
            work_cv.wait(lock, [&] { return job && job->open && job->joined < job->want && generation != seen; });
            seen = generation;
            Job* j = job;
            ++j->joined, ++j->active;
            lock.unlock();
            (*j->work)();
            lock.lock();
            if (--j->active == 0) done_cv.notify_all();
        }
    }

    // Polls every 10 ms while a run is watched or was lately (a run is not held up by waking
    // it: on a loaded machine the woken thread may take the caller's core), else sleeps.
    void monitor() {
        std::unique_lock<std::mutex> lock(watch_mu);
        for (;;) {
            if (watches.empty() && Clock::now() > poll_until) {
                monitor_asleep = true;
                watch_cv.wait(lock);
                monitor_asleep = false;
            } else {
                watch_cv.wait_for(lock, std::chrono::milliseconds(10));
            }
            const auto now = Clock::now();
            for (auto& [ticket, w] : watches) {
                uint8_t code = 0;
                if (w.has_deadline && now > w.deadline) code = w.timeout_code;
                if (w.cancel && w.cancel->load(std::memory_order_relaxed)) code = w.cancel_code;
                uint8_t running = 0;
                if (code) w.stop->compare_exchange_strong(running, code);
            }
        }
    }
};

Pool& pool() {
    static Pool* p = new Pool;  // never destroyed: its threads outlive main's statics
    return *p;
}

void ensure_threads(Pool& p, int helpers) {
    // Called with p.mu held.
    for (; p.threads < helpers; ++p.threads) std::thread([&p] { p.helper(); }).detach();
}

}  // namespace

// Called with p.watch_mu held: the monitor runs and polls for the next two seconds.
void keep_polling(Pool& p) {
    p.poll_until = Clock::now() + std::chrono::seconds(2);
    if (!p.monitor_started) {
        std::thread([&p] { p.monitor(); }).detach();
        p.monitor_started = true;
    } else if (p.monitor_asleep) {
        p.watch_cv.notify_all();
    }
}

void block_pool_warm(int helpers) {
    Pool& p = pool();
    {
        std::lock_guard<std::mutex> lock(p.mu);
        ensure_threads(p, helpers);
    }
    std::lock_guard<std::mutex> lock(p.watch_mu);
    keep_polling(p);
}

void block_pool_run(int helpers, const std::function<void()>& work) {
    Pool& p = pool();
    Job j;
    j.work = &work;
    j.want = helpers;
    {
        std::lock_guard<std::mutex> lock(p.mu);
        if (p.job || helpers <= 0) {
            j.want = 0;  // the pool is busy with another run (or none is wanted): this one runs alone
        } else {
            ensure_threads(p, helpers);
            p.job = &j;
            ++p.generation;
        }
    }
    if (j.want > 0) p.work_cv.notify_all();
    work();
    if (j.want == 0) return;
    std::unique_lock<std::mutex> lock(p.mu);
    j.open = false;
    p.job = nullptr;
    p.done_cv.wait(lock, [&] { return j.active == 0; });
}

uint64_t block_pool_watch(std::atomic<uint8_t>* stop, double deadline_s, const std::atomic<bool>* cancel, uint8_t timeout_code, uint8_t cancel_code) {
    if (deadline_s <= 0 && !cancel) return 0;
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.watch_mu);
    keep_polling(p);
    Watch w{stop,           Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(deadline_s)),
            deadline_s > 0, cancel,
            timeout_code,   cancel_code};
    const uint64_t ticket = p.next_ticket++;
    p.watches.emplace(ticket, w);
    return ticket;
}

void block_pool_unwatch(uint64_t ticket) {
    if (ticket == 0) return;
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.watch_mu);
    p.watches.erase(ticket);
    p.poll_until = Clock::now() + std::chrono::seconds(2);
}

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

}  // namespace tp::jit
