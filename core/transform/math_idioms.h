// math_idioms: rewrites well-known float32 formulas to one runtime routine that computes the
// same function faster, to a documented accuracy. Today one idiom: the exact GELU,
// 0.5 * x * (1 + erf(x / sqrt 2)) in any order of its factors (also x * (...) / 2, and x * c
// with c = 1 / sqrt 2 or x / sqrt 2 inside erf), becomes gelu_erf(x) (tp::gelu_erf in
// runtime/tp_common.cuh: about 12 instructions instead of about 29; relative error under
// 5e-6 where erff's formula has 2 ulp for x > 0 but loses all digits below x = -5.4, as
// 1 + erf rounds to 0). A fused GEMM epilogue is issue-bound, so this is the epilogue's time. Runs on the
// tile-level IR after simplify has folded the user's constants.
#pragma once

#include "ir/ir.h"

namespace tp::transform {

ir::PrimFuncPtr math_idioms(const ir::PrimFuncPtr& func);

// The rewrite on one expression (null when it is not the idiom), for tests.
ir::Expr match_gelu_erf(const ir::Expr& e);

}  // namespace tp::transform
