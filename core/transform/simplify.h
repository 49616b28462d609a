// simplify: constant folding and algebraic simplification of index math, so loop bounds and
// buffer offsets reach codegen as `by * 128 + i` rather than `(by * 64 * 2 + 0) + i * 1`.
// Also drops branches on constant conditions and loops that run zero times.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr simplify(const ir::PrimFuncPtr& func);
ir::Expr simplify_expr(const ir::Expr& e);

}  // namespace tp::transform
