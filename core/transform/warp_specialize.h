// Warp-specialized TMA + wgmma GEMM main loops for sm_90a, in two steps around the generic
// lowering so the fragment epilogue code stays shared with every other target:
//   plan_warp_specialized (before layout-inference): a kernel whose one T.Pipelined loop is
//     exactly "T.copy global->A_shared; T.copy global->B_shared; T.gemm(A_shared, B_shared,
//     C_frag)" with shapes the Hopper templates take (f16/bf16, BM 64 or 128, BN a multiple of
//     64 up to 256, BK 64, A not transposed, 2-D global tensors with constant 16-byte aligned
//     rows) and an epilogue of fragment-only code gets BM / 64 consumer warpgroups: the block
//     becomes BM * 2 threads and the gemm FullRow, so C gets tp::AccLayout<BM, BN, BM/16, 1>,
//     which is exactly the wgmma accumulator layout. Attributes tp.ws.* record the plan.
//   warp_specialize (after lower-tile-ops, before pipeline-loops): replaces that loop by the
//     tp::WsGemm ring (tp_ws_gemm.cuh): an extra producer warpgroup issuing TMA copies, the
//     consumers running wgmma and then the already lowered epilogue. It also records the
//     tensor maps the launcher must encode (attribute tp.tma_maps, see tensor_maps_of).
// When the lowered loop or epilogue is not what the rewrite expects, it leaves the function
// alone: the kernel then runs the ordinary cp.async + mma.sync pipeline (FullRow warps), so
// correctness never depends on the Hopper path. Other targets are never touched.
#pragma once

#include <vector>

#include "ir/ir.h"
#include "target.h"
#include "tileplay/compiler.h"

namespace tp::transform {

// A kernel with a T.Pipelined loop it cannot take gets a FastPathNotTaken remark at the loop.
ir::PrimFuncPtr plan_warp_specialized(const ir::PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags);
ir::PrimFuncPtr warp_specialize(const ir::PrimFuncPtr& func, const Target& target);

// True when warp_specialize rewrote the function (codegen: __launch_bounds__(T, 1), shared
// memory aligned to 1024 bytes, tensor-map parameters).
bool is_warp_specialized(const ir::PrimFunc& func);
// The tensor maps the kernel takes, in parameter order after the ordinary parameters.
std::vector<TensorMapInfo> tensor_maps_of(const ir::PrimFunc& func);

}  // namespace tp::transform
