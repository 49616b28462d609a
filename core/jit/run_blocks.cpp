// The JIT's block loop: evaluates the grid, then runs the blocks (all, or a sample) on the
// process's pool of block workers (block_pool.h), each with its own State. The pool's monitor
// turns the watchdog and a cancel into the stop flag the generated code polls at outer loops; a
// fault stops the run so the caller can re-run the launch on the interpreter for its diagnostic.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "interp/cpu_jit_abi.h"
#include "jit/block_pool.h"
#include "jit/block_threads.h"
#include "jit/kernel.h"

namespace tp::jit {

namespace {

enum Stop : uint8_t { kRunning = 0, kFault = 1, kTimeout = 2, kCancel = 3 };

// TILEPLAY_JIT_TIMES: where a run's time goes (the blocks' CPU time, the threads that took part,
// how late the last one joined).
struct RunTimes {
    const bool on = std::getenv("TILEPLAY_JIT_TIMES") != nullptr;
    std::chrono::steady_clock::time_point t0;
    std::atomic<int64_t> busy_ns{0}, late_ns{0};
    std::atomic<int> took_part{0};
    explicit RunTimes(std::chrono::steady_clock::time_point start) : t0(start) {}

    struct Worker {  // one per thread that joins the run, for as long as it works on it
        RunTimes& r;
        double cpu0 = 0;
        explicit Worker(RunTimes& rt) : r(rt) {
            if (!r.on) return;
            cpu0 = thread_cpu_ms();
            r.took_part.fetch_add(1);
            const auto late = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - r.t0).count();
            int64_t cur = r.late_ns.load();
            while (late > cur && !r.late_ns.compare_exchange_weak(cur, late)) {}
        }
        ~Worker() {
            if (r.on) r.busy_ns.fetch_add(static_cast<int64_t>((thread_cpu_ms() - cpu0) * 1e6));
        }
    };

    void report(size_t blocks, double wall_ms, int threads) const {
        if (!on) return;
        std::fprintf(stderr, "jit: run %zu blocks: wall %.3f ms, block CPU time %.3f ms on %d of %d thread(s), the last joined after %.3f ms\n",
                     blocks, wall_ms, static_cast<double>(busy_ns.load()) * 1e-6, took_part.load(), threads,
                     static_cast<double>(late_ns.load()) * 1e-6);
    }
};

void set_stop(std::atomic<uint8_t>& stop, Stop why) {
    uint8_t expected = kRunning;
    stop.compare_exchange_strong(expected, why);
}

}  // namespace

int32_t run_blocks(void* handle, TpJitParam* params, int32_t n_params, const TpJitRunOptions* o, TpJitRunResult* out) {
    *out = TpJitRunResult{};
    out->fault_block = -1;
    out->stop_block = -1;
    try {
        const Kernel& k = *static_cast<Handle*>(handle)->kernel;
        if (n_params != k.n_params) {
            std::snprintf(out->message, sizeof out->message, "the JIT got %d arguments for %d parameters", n_params, k.n_params);
            return out->status = TP_JIT_ERROR;
        }
        const size_t n = static_cast<size_t>(n_params);
        std::vector<void*> data(n);
        std::vector<int64_t> shapes(n * TP_JIT_MAX_RANK);
        std::vector<double> scalars(n);
        std::vector<uint8_t*> written(n);
        for (size_t i = 0; i < n; ++i) {
            data[i] = params[i].data;
            for (int d = 0; d < TP_JIT_MAX_RANK; ++d) shapes[i * TP_JIT_MAX_RANK + d] = params[i].shape[d];
            scalars[i] = params[i].scalar;
            written[i] = params[i].written;
        }
        const Ctx ctx{data.data(), shapes.data(), scalars.data(), written.data()};
        std::atomic<uint8_t> stop{kRunning};
        State gs;
        gs.stop = reinterpret_cast<const uint8_t*>(&stop);
        int64_t grid[3] = {1, 1, 1};
        k.grid(&ctx, &gs, grid);
        for (int d = 0; d < 3; ++d) out->grid[d] = grid[d];
        if (gs.fault) return out->status = TP_JIT_FAULT;
        const int64_t total = grid[0] * grid[1] * grid[2];
        std::vector<int64_t> blocks;
        if (o->blocks) {
            blocks.assign(o->blocks, o->blocks + o->n_blocks);
            for (int64_t b : blocks)
                if (b < 0 || b >= total) return out->status = TP_JIT_FAULT;  // the interpreter says which
        } else {
            blocks.resize(static_cast<size_t>(std::max<int64_t>(total, 0)));
            for (size_t b = 0; b < blocks.size(); ++b) blocks[b] = static_cast<int64_t>(b);
        }
        if (auto* t = static_cast<std::atomic<int64_t>*>(o->progress_total)) t->fetch_add(static_cast<int64_t>(blocks.size()));
        int threads = o->threads > 0 ? o->threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        threads = static_cast<int>(std::min<int64_t>(threads, std::max<int64_t>(static_cast<int64_t>(blocks.size()), 1)));
        out->threads_used = threads;

        // The pool's monitor turns the watchdog's limit and the caller's cancel into the stop flag.
        const auto* cancel = static_cast<const std::atomic<bool>*>(o->cancel);
        const auto t0 = std::chrono::steady_clock::now();
        const uint64_t watch = block_pool_watch(&stop, o->watchdog_s, cancel, kTimeout, kCancel);
        std::atomic<size_t> next{0};
        std::atomic<int64_t> ran{0};
        std::atomic<int64_t> fault_pos{INT64_MAX};
        std::mutex stop_mu;
        int64_t stop_pos = INT64_MAX;
        int32_t stop_site = -1;
        auto* progress = static_cast<std::atomic<int64_t>*>(o->progress_done);
        std::vector<std::string> prints(k.has_print ? blocks.size() : 0);
        RunTimes times(t0);
        auto worker = [&] {
            RunTimes::Worker timed(times);
            State st;
            st.stop = reinterpret_cast<const uint8_t*>(&stop);
            st.site = -1;
            while (stop.load(std::memory_order_relaxed) == kRunning) {
                const size_t pos = next.fetch_add(1);
                if (pos >= blocks.size()) break;
                const int64_t b = blocks[pos];
                st.fault = 0;
                st.prints = k.has_print ? &prints[pos] : nullptr;
                if (k.thread_mode)
                    run_block_threads(k, &ctx, st, b % grid[0], (b / grid[0]) % grid[1], b / (grid[0] * grid[1]));
                else
                    k.block(&ctx, &st, b % grid[0], (b / grid[0]) % grid[1], b / (grid[0] * grid[1]));
                if (st.fault) {
                    int64_t cur = fault_pos.load();
                    while (static_cast<int64_t>(pos) < cur && !fault_pos.compare_exchange_weak(cur, static_cast<int64_t>(pos))) {}
                    set_stop(stop, kFault);
                    break;
                }
                if (st.site >= 0) {  // cut short by the monitor, in that loop
                    std::lock_guard<std::mutex> lock(stop_mu);
                    if (static_cast<int64_t>(pos) < stop_pos) stop_pos = static_cast<int64_t>(pos), stop_site = st.site;
                    break;
                }
                ran.fetch_add(1);
                if (progress) progress->fetch_add(1, std::memory_order_relaxed);
            }
        };
        // The calling thread is one of the workers; the pool's threads help as they wake.
        block_pool_run(threads - 1, worker);
        block_pool_unwatch(watch);
        out->ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        times.report(blocks.size(), out->ms, threads);
        out->blocks_run = ran.load();
        // The interpreter prints what its blocks printed, in block order, also after a timeout or
        // a cancel; after a fault its own re-run prints.
        if (o->print && stop.load() != kFault)
            for (const auto& text : prints)
                if (!text.empty()) o->print(o->print_user, text.data(), static_cast<int64_t>(text.size()));
        switch (stop.load()) {
            case kFault:
                out->fault_block = blocks[static_cast<size_t>(fault_pos.load())];
                return out->status = TP_JIT_FAULT;
            case kTimeout:
                if (stop_site >= 0 && static_cast<size_t>(stop_site) < k.sites.size()) {
                    const Span& s = k.sites[static_cast<size_t>(stop_site)];
                    out->stop_span[0] = s.begin.line, out->stop_span[1] = s.begin.col, out->stop_span[2] = s.end.line, out->stop_span[3] = s.end.col;
                    out->stop_block = blocks[static_cast<size_t>(stop_pos)];
                }
                return out->status = TP_JIT_TIMEOUT;
            case kCancel:
                return out->status = TP_JIT_CANCELLED;
            default:
                return out->status = TP_JIT_OK;
        }
    } catch (const std::exception& e) {
        std::snprintf(out->message, sizeof out->message, "internal: %s", e.what());
    } catch (...) {
        std::snprintf(out->message, sizeof out->message, "internal: an unknown error in the JIT's block loop");
    }
    return out->status = TP_JIT_ERROR;
}

}  // namespace tp::jit
