// T.fill / T.clear as an op object: it writes its destination region and reads nothing (its
// value is an expression). Its CUDA forms are in codegen/cuda/ops/fill.cpp.
#pragma once

#include "ops/access.h"

namespace tp::ops {

OpAccess access(const ir::FillOpNode& f);

}  // namespace tp::ops
