// A tensor's summary for reports (`tilec run`'s output lines, a CPU worker's `run` reply): one
// function on both sides, so a run through a worker prints exactly what a local run does.
#pragma once

#include <nlohmann/json.hpp>

#include "../../tensor/tensor.h"

namespace tp {

// {"dtype", "shape", "mean", "rms", "min", "max", "nonfinite"}: the moments over the finite
// elements, and how many were not finite.
nlohmann::json tensor_stats(const HostTensor& t);

}  // namespace tp
