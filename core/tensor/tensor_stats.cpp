// tensor_stats (tileplay/tensor_stats.h).
#include "tileplay/tensor_stats.h"

#include <algorithm>
#include <cmath>

namespace tp {

nlohmann::json tensor_stats(const HostTensor& t) {
    double sum = 0, sq = 0, mn = INFINITY, mx = -INFINITY;
    int64_t nonfinite = 0;
    for (int64_t i = 0; i < t.numel(); ++i) {
        double v = t.get(i);
        if (!std::isfinite(v)) {
            ++nonfinite;
            continue;
        }
        sum += v, sq += v * v, mn = std::min(mn, v), mx = std::max(mx, v);
    }
    int64_t n = t.numel() - nonfinite;
    double mean = n ? sum / n : 0;
    return {{"dtype", t.dtype.name()}, {"shape", t.shape},    {"mean", mean},          {"rms", n ? std::sqrt(sq / n) : 0.0},
            {"min", n ? mn : 0.0},     {"max", n ? mx : 0.0}, {"nonfinite", nonfinite}};
}

}  // namespace tp
