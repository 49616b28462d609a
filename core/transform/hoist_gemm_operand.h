// hoist_gemm_operand (sm_90a): a T.gemm inside a loop whose A operand is a
// shared tile the loop never writes (attention's Q against every K tile) reads
// A from registers: the tile is copied once, before the loop, into a fragment
// in wgmma's A-operand layout, and the gemm becomes an RS wgmma (A in
// registers, B in shared memory). Each issue then reads only B from shared
// memory: for a 64-row warpgroup tile against 64 keys that is half the
// shared-memory traffic of S = Q K^T, which bounds a one-warpgroup attention
// loop. The fragment costs A's size over the threads in registers, so the pass
// takes a gemm only when A is at most 32 registers a thread and the kernel's
// fragments stay under about 160 (two-warpgroup 128 x 128 attention keeps Q in
// shared memory, as FlashAttention-3 does); `--remarks` says so at the gemm
// otherwise. Needs a whole 16-bit [M][K] A tile (no transpose_A) and a gemm
// that ops::plan_wgmma takes as RS with whole rows of A a warp (the FullRow
// policy). `tp.disable_hoist_operand` switches it off. Runs on the tile-level
// IR before layout-inference, which gives the fragment its layout.
#pragma once

#include "ir/ir.h"
#include "target.h"
#include "tileplay/diagnostics.h"

namespace tp::transform {

ir::PrimFuncPtr hoist_gemm_operand(const ir::PrimFuncPtr &func,
                                   const Target &target,
                                   DiagnosticEngine &diags);

} // namespace tp::transform
