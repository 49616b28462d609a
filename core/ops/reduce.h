// T.reduce_max / sum / min / abssum / absmax as an op object: it reads all of its source, and
// its destination too when it combines into it (clear=False), and writes the destination.
// Its CUDA forms (warp shuffles and a shared scratch across warps) are in
// codegen/cuda/ops/reduce.cpp.
#pragma once

#include "ops/access.h"

namespace tp::ops {

OpAccess access(const ir::ReduceOpNode& r);

}  // namespace tp::ops
