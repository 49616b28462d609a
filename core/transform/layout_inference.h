// layout_inference: decides where every fragment element lives and lowers everything that
// touches fragments, so later passes see only per-thread register arrays.
//   - a T.gemm C operand gets the mma accumulator layout (warp grid from the GemmWarpPolicy
//     and the block's warps); fragments copied to/from it or indexed with it in one T.Parallel
//     loop inherit it; 1-D fragments reduced from it (dim=1 / dim=0) or indexed by its row /
//     column get its row / column layout; any other fragment is striped over the threads
//   - T.Parallel loops over fragments become unrolled per-thread loops over local elements
//     with (row, col) computed from the layout; T.fill / T.copy on fragments, T.gemm
//     (tp::gemm_ss / gemm_rs) and T.reduce_* (tp::reduce_rows / reduce_cols) become
//     per-thread code or template calls, each op by its own lowering (codegen/cuda/ops/<op>.cpp)
//   - on sm_90a a T.gemm that ops::plan_wgmma accepts lowers to wgmma (tp::gemm_wgmma_ss /
//     gemm_wgmma_rs) with its accumulator split 16 rows per warp; one it refuses keeps
//     mma.sync and gets a remark at its line saying why
//   - shared tiles that feed T.gemm get tp::SmemTile's swizzled layout (BufferNode::layout),
//     128-byte panels ("panels") where a wgmma operand is wider than 64 elements
#pragma once

#include <map>

#include "ir/ir.h"
#include "ops/gemm.h"
#include "target.h"
#include "tileplay/diagnostics.h"
#include "transform/fragment_layout.h"

namespace tp::transform {

// Null when something could not be lowered (the diagnostic is reported).
ir::PrimFuncPtr layout_inference(const ir::PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags);

// The inference alone (for tests and --print-after): fragment -> layout. Reports conflicts.
// `wgmma`: gemms that lower to wgmma (ops::plan_wgmma), whose accumulators take the plan's
// partition (16 rows per warp) instead of their GemmWarpPolicy's.
std::map<const ir::BufferNode*, FragLayout> infer_fragment_layouts(
    const ir::PrimFunc& func, DiagnosticEngine& diags, const std::map<const ir::GemmOpNode*, ops::WgmmaPlan>* wgmma = nullptr);

// The gemms that lower to wgmma (sm_90a), each with its plan; a FastPathNotTaken remark at
// every other one says why it stays on mma.sync.
std::map<const ir::GemmOpNode*, ops::WgmmaPlan> plan_wgmma_gemms(const ir::PrimFunc& f, const Target& target, DiagnosticEngine& diags);

}  // namespace tp::transform
