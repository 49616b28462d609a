// Kernel timing the way the tutorial measures: CUDA events around each launch, warm-up
// launches first, the L2 cache flushed (a buffer of twice its size overwritten) before every
// timed launch, and the median of N with the min and the spread. Several candidates (our
// kernel, cuBLAS, ...) are timed interleaved, round by round, so clock and thermal drift hit
// them alike.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "runtime/device.h"

namespace tp::runtime {

struct TimingStats {
    int n = 0;
    double min_ms = 0, median_ms = 0, max_ms = 0, mean_ms = 0;
    double spread_pct = 0;  // (p90 - p10) / median, percent
    std::vector<double> samples_ms;
};

// Summarizes raw samples (any order). Empty input gives n == 0.
TimingStats summarize_times(std::vector<double> ms);

// TFLOP/s and GB/s from a time in milliseconds; 0 when the count or time is not positive.
double tflops(double flops, double ms);
double gbps(double bytes, double ms);

struct BenchOptions {
    int warmup = 10;
    int iters = 50;
    bool flush_l2 = true;
};

// One thing to time: enqueues its work on the default stream (no synchronization inside).
struct TimedCandidate {
    std::string name;
    std::function<void()> launch;
};

// Times every candidate `iters` times, interleaved round by round, after `warmup` untimed
// rounds. Needs a current context (DeviceContext). `progress(done, total)` is called after
// each round when given. Throws CudaError on a driver error.
std::vector<TimingStats> bench_interleaved(const DeviceInfo& dev, const std::vector<TimedCandidate>& cands,
                                           const BenchOptions& opts,
                                           const std::function<void(int, int)>& progress = {});

}  // namespace tp::runtime
