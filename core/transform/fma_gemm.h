// fma_gemm: a T.gemm whose operand types no Tensor-Core path here takes (float32 / tf32, int8,
// float64, a float16 accumulator...) becomes multiply-add loops before layout inference, so C
// gets a layout from them like any other element-wise fragment code: with A and B in shared or
// global memory, a serial loop over K around a T.Parallel nest over C (each K step one unrolled
// pass over a thread's elements, which keeps the generated code small); with a fragment operand,
// the T.Parallel nest over C with the loop over K inside, whose reads of the fragment
// stage_fragments (after this pass) moves through a shared copy when its layout does not hold
// them. The result is the same product the interpreter computes (no tf32 rounding of the
// inputs); it is slow, so a FastPathNotTaken remark at the T.gemm says so.
#pragma once

#include "ir/ir.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

// True when mma.sync / wgmma lowering takes these operand and accumulator types.
bool gemm_has_tensor_core_types(const ir::GemmOpNode& g);

ir::PrimFuncPtr fma_gemm(const ir::PrimFuncPtr& func, DiagnosticEngine& diags);

}  // namespace tp::transform
