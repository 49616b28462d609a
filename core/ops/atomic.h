// T.atomic_add as an op object: dst += src reads and writes its destination region and reads
// its source region (nothing when the source is a scalar value). Its CUDA form (atomicAdd per
// element) is in codegen/cuda/ops/atomic.cpp.
#pragma once

#include "ops/access.h"

namespace tp::ops {

OpAccess access(const ir::AtomicAddOpNode& a);

}  // namespace tp::ops
