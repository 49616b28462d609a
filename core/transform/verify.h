// verify: checks invariants of Tile IR that earlier stages must guarantee (every buffer used is
// a parameter or allocated in scope, index counts match buffer ranks, every variable is bound).
// A violation is a compiler bug: it throws InternalError naming the pass that ran before.
#pragma once

#include <string>

#include "ir/ir.h"

namespace tp::transform {

void verify(const ir::PrimFunc& func, const std::string& after_pass);

}  // namespace tp::transform
