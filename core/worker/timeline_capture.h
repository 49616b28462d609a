// `run` with a kernel compiled with `tp.timeline` (tilec run --timeline): zero the module's
// timeline buffer before the launch, read it back after it and answer with the Chrome trace
// (tileplay/timeline.h). Kernels compiled without the config are left alone.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "runtime/cuda_driver.h"
#include "worker/kernel_session.h"

namespace tp::worker {

struct TimelineCapture {
    std::string events;  // the stamps pass's event table; empty: the kernel has no stamps
    runtime::CUdeviceptr ptr = 0;
    size_t bytes = 0;
    std::string note;  // why no trace can come back, when one was asked for
    bool armed() const { return ptr != 0; }
};

// Before the launch: the stamped launch's table and its zeroed buffer.
TimelineCapture start_timeline(const KernelSession& s);
// After the synchronised launch: {"trace": the Chrome trace, "records", "dropped"}, or null.
nlohmann::json finish_timeline(const TimelineCapture& c, const KernelSession& s);

}  // namespace tp::worker
