// T.gemm as an object the passes ask rather than match: its tile shapes, operands and access, and
// whether it can run as wgmma (sm_90a) in a block of a given size, with the partition of the
// accumulator across warps and the shared layouts its operand tiles then need, or the reason
// it cannot, said at the T.gemm line (a remark) when the kernel falls back to mma.sync. Its
// CUDA forms (wgmma, mma.sync, fp8) are in codegen/cuda/ops/gemm.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/ir.h"
#include "ops/access.h"
#include "target.h"

namespace tp::ops {

// Reads A and B, and C unless clear_accum overwrites it; writes C.
OpAccess access(const ir::GemmOpNode& g);

// The gemm's constant tile shapes: C is M x N, K the reduction; A[M][K] (or [K][M] with
// transpose_A), B[K][N] (or [N][K] with transpose_B).
struct GemmShape {
    int64_t m = 0, n = 0, k = 0;
    int64_t a_cols = 0, b_cols = 0;  // contiguous extent of each operand tile as stored
    int64_t a_rows = 0, b_rows = 0;
};
// Empty with `why` when a tile is not a whole 2-D buffer of constant shape.
std::optional<GemmShape> gemm_shape(const ir::GemmOpNode& g, std::string& why);

struct WgmmaPlan {
    bool ok = false;
    std::string why;          // why not, for the remark
    bool rs = false;          // A from registers (RS form) rather than shared memory (SS)
    // Accumulator partition: warpgroups wg_m x wg_n with warps_m = 4 * wg_m; each warpgroup
    // owns m_blocks blocks of 64 rows (interleaved with the other warpgroups' when more than
    // one: tp::AccLayout's INTERLEAVE) and wn columns.
    int warps_m = 0, warps_n = 0;
    int m_blocks = 1;
    int a_swizzle = 0, b_swizzle = 0;  // tp::SmemTile layout code each shared tile needs: 1 rows, 2 panels
    int64_t wn = 0;           // N of each warpgroup's instruction (m64 x wn x k16)
};
// Whether `g` lowers to wgmma on `target` with `threads` threads in a one-dimensional block.
WgmmaPlan plan_wgmma(const ir::GemmOpNode& g, const Target& target, int64_t threads);

// The tp::SmemTile layout code (0 row-major, 1 swizzled rows, 2 swizzled 128-byte panels) of a
// shared buffer's `layout` ("", "swizzle", "panels"), as the runtime templates take it.
int smem_layout_code(const ir::Buffer& b);
std::string smem_layout_arg(const ir::Buffer& b);  // "false", "true", "2"

}  // namespace tp::ops
