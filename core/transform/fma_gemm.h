// fma_gemm: a T.gemm whose operand types no Tensor-Core path here takes (float32 / tf32, int8,
// float64, a float16 accumulator...) becomes a T.Parallel nest over C with a serial loop over K
// of multiply-adds, before layout inference, so C gets a layout from that loop like any other
// element-wise fragment code. The result is the same product the interpreter computes (no tf32
// rounding of the inputs); it is slow, so a FastPathNotTaken remark at the T.gemm says so.
// A and B in shared or global memory, or fragments: stage_fragments (after this pass) moves the
// loop's reads of a fragment operand through a shared copy when its layout does not hold them.
#pragma once

#include "ir/ir.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// True when mma.sync / wgmma lowering takes these operand and accumulator types.
bool gemm_has_tensor_core_types(const ir::GemmOpNode& g);

ir::PrimFuncPtr fma_gemm(const ir::PrimFuncPtr& func, DiagnosticEngine& diags);

}  // namespace tp::transform
