// Values copied from the reference table; unknown targets fall back to sm_90's.
#include "charts/gpu_specs.h"

namespace tpui {

GpuRoofs roofs_for_target(const QString& t) {
    if (t == "sm_75") return {"T4", 65, 320};
    if (t == "sm_80") return {"A100 SXM 80GB", 312, 2039};
    if (t == "sm_86") return {"A10", 125, 600};
    if (t == "sm_89") return {"L4", 121, 300};
    return {"H200", 989, 4800};
}

}  // namespace tpui
