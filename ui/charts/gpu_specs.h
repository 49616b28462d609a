// Roofline roofs per target: an example GPU's dense fp16 Tensor Core peak and DRAM bandwidth,
// from shared/reference/gpus.md (sm_90 uses the H200 we measure on).
#pragma once

#include <QString>

namespace tpui {

struct GpuRoofs {
    QString gpu;
    double peak_tflops = 0;
    double dram_gbs = 0;
};

GpuRoofs roofs_for_target(const QString& target);

}  // namespace tpui
