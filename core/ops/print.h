// T.print as an op object: it reads the buffer it prints (all of it; nothing when it prints a
// scalar expression) and is a point passes move nothing across. Fragments are staged through
// shared memory for it by codegen/cuda/ops/print.cpp; codegen prints the tile from one thread.
#pragma once

#include "ops/access.h"

namespace tp::ops {

OpAccess access(const ir::PrintOpNode& p);

}  // namespace tp::ops
