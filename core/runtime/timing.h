// Kernel timing the way the tutorial measures: CUDA events around each launch, the L2 cache
// flushed (a clean buffer of twice its size read) before every timed launch, and the median
// of N with the min and the spread. runtime/rounds.h alternates several peers in rounds.
#pragma once

#include <functional>
#include <memory>
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

// Times launches on one device with CUDA events: each timed launch follows an L2 flush (when
// asked), and an event pair around the launch alone. Needs a current context (DeviceContext).
class EventTimer {
public:
    EventTimer(const DeviceInfo& dev, bool flush_l2);
    ~EventTimer();
    EventTimer(const EventTimer&) = delete;
    EventTimer& operator=(const EventTimer&) = delete;

    // `n` samples of `launch` (which enqueues its work on the default stream and does not
    // synchronize), in milliseconds. Throws CudaError on a driver error; `what` names it.
    std::vector<double> time(const std::function<void()>& launch, int n, const std::string& what);
    // The flush as the result records it: "read 120 MiB (2x L2) before each timed launch".
    std::string flush_description() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace tp::runtime
