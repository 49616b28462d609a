// CUDA-event timing with L2 flushing and interleaved candidates; see timing.h.
#include "runtime/timing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace tp::runtime {

namespace {

double quantile(const std::vector<double>& sorted, double q) {
    if (sorted.empty()) return 0;
    double pos = q * static_cast<double>(sorted.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, sorted.size() - 1);
    double f = pos - static_cast<double>(lo);
    return sorted[lo] * (1 - f) + sorted[hi] * f;
}

// Owns a pair of events; destroyed even when a launch throws.
struct EventPair {
    CUevent start = nullptr, stop = nullptr;
    EventPair() {
        const CudaDriver& d = cuda_driver();
        cu_check(d.cuEventCreate(&start, 0), "cuEventCreate");
        cu_check(d.cuEventCreate(&stop, 0), "cuEventCreate");
    }
    ~EventPair() {
        const CudaDriver& d = cuda_driver();
        if (start) d.cuEventDestroy(start);
        if (stop) d.cuEventDestroy(stop);
    }
    EventPair(const EventPair&) = delete;
    EventPair& operator=(const EventPair&) = delete;
};

}  // namespace

TimingStats summarize_times(std::vector<double> ms) {
    TimingStats s;
    s.samples_ms = ms;
    s.n = static_cast<int>(ms.size());
    if (ms.empty()) return s;
    std::sort(ms.begin(), ms.end());
    s.min_ms = ms.front();
    s.max_ms = ms.back();
    s.median_ms = quantile(ms, 0.5);
    s.mean_ms = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
    s.spread_pct = s.median_ms > 0 ? 100.0 * (quantile(ms, 0.9) - quantile(ms, 0.1)) / s.median_ms : 0;
    return s;
}

double tflops(double flops, double ms) { return flops > 0 && ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0; }
double gbps(double bytes, double ms) { return bytes > 0 && ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

std::vector<TimingStats> bench_interleaved(const DeviceInfo& dev, const std::vector<TimedCandidate>& cands,
                                           const BenchOptions& opts, const std::function<void(int, int)>& progress) {
    const CudaDriver& d = cuda_driver();
    // Twice the L2 size guarantees every line of the previous launch's data is evicted.
    DeviceBuffer flush;
    if (opts.flush_l2 && dev.l2_bytes > 0) flush = DeviceBuffer(2 * static_cast<size_t>(dev.l2_bytes));
    auto flush_l2 = [&] {
        if (flush.size()) cu_check(d.cuMemsetD8Async(flush.ptr(), 0, flush.size(), nullptr), "cuMemsetD8Async");
    };
    for (int w = 0; w < opts.warmup; ++w)
        for (const auto& c : cands) c.launch();
    cu_check(d.cuCtxSynchronize(), "warm-up launches");

    EventPair ev;
    std::vector<std::vector<double>> samples(cands.size());
    int iters = std::max(1, opts.iters);
    for (int it = 0; it < iters; ++it) {
        for (size_t i = 0; i < cands.size(); ++i) {
            flush_l2();
            cu_check(d.cuEventRecord(ev.start, nullptr), "cuEventRecord");
            cands[i].launch();
            cu_check(d.cuEventRecord(ev.stop, nullptr), "cuEventRecord");
            cu_check(d.cuEventSynchronize(ev.stop), ("timed launch of " + cands[i].name).c_str());
            float ms = 0;
            cu_check(d.cuEventElapsedTime(&ms, ev.start, ev.stop), "cuEventElapsedTime");
            samples[i].push_back(ms);
        }
        if (progress) progress(it + 1, iters);
    }
    std::vector<TimingStats> out;
    for (auto& s : samples) out.push_back(summarize_times(std::move(s)));
    return out;
}

}  // namespace tp::runtime
