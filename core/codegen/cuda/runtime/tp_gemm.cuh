// Warp-level Tensor-Core GEMM over one BK slice of a block tile (TileLang's T.gemm):
//   gemm_ss: A and B in shared memory (ldmatrix / ldmatrix.trans from SmemTile layouts)
//   gemm_rs: A in registers in accumulator layout (FlashAttention-2's P @ V), B in shared
// C += A * B with fp32 accumulators in tp::AccLayout<BM, BN, WARPS_M, WARPS_N>. The caller
// loops over K tiles, manages the cp.async pipeline and the __syncthreads() around it.
#pragma once

#include "tp_layout.cuh"
#include "tp_mma.cuh"

namespace tp {

// A: TRANS_A ? [BK][BM] : [BM][BK];  B: TRANS_B ? [BN][BK] : [BK][BN]  (row-major tiles,
// addressed as SmemTile<row length>). T is __half or __nv_bfloat16.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, class T,
          bool SWIZZLE = true>
struct MmaTile {
    using Acc = AccLayout<BM, BN, WARPS_M, WARPS_N>;
    using TileA = SmemTile<TRANS_A ? BM : BK, 2, SWIZZLE>;
    using TileB = SmemTile<TRANS_B ? BK : BN, 2, SWIZZLE>;
    static constexpr int MT = Acc::MT;
    static constexpr int NT = Acc::NT;
    static constexpr int KT = BK / 16;
    static_assert(sizeof(T) == 2, "Tensor-Core operands are 16-bit here");
    static_assert(BK % 16 == 0, "block_K must be a multiple of 16");

    // A fragments (mma A layout, see tp_mma.cuh) of k16 step kk for this warp's MT row tiles.
    static __device__ __forceinline__ void load_a(unsigned (&a)[MT][4], const T* As, int kk, int wm,
                                                  int lane) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            int row, col;
            if constexpr (!TRANS_A) {  // lanes 0-15: rows 0-15 at k 0; lanes 16-31: rows 0-15 at k 8
                row = wm * Acc::WM + mt * 16 + (lane & 15);
                col = kk * 16 + (lane >> 4) * 8;
            } else {  // stored [k][m]: matrix i = lane/8 covers k (i/2)*8.., m (i%2)*8..
                row = kk * 16 + ((lane >> 4) << 3) + (lane & 7);
                col = wm * Acc::WM + mt * 16 + (((lane >> 3) & 1) << 3);
            }
            unsigned addr = smem_addr(As + TileA::offset(row, col));
            if constexpr (!TRANS_A) {
                ldmatrix_x4(a[mt][0], a[mt][1], a[mt][2], a[mt][3], addr);
            } else {
                ldmatrix_x4_trans(a[mt][0], a[mt][1], a[mt][2], a[mt][3], addr);
            }
        }
    }

    // B fragments of k16 step kk for this warp's NT column tiles (two tiles per ldmatrix.x4).
    static __device__ __forceinline__ void load_b(unsigned (&b)[NT][2], const T* Bs, int kk, int wn,
                                                  int lane) {
        const int i = lane >> 3, r = lane & 7;
#pragma unroll
        for (int np = 0; np < NT / 2; ++np) {
            int row, col;
            if constexpr (!TRANS_B) {  // stored [k][n]: matrix i covers k (i%2)*8.., n (i/2)*8..
                row = kk * 16 + (i & 1) * 8 + r;
                col = wn * Acc::WN + np * 16 + (i >> 1) * 8;
            } else {  // stored [n][k]
                row = wn * Acc::WN + np * 16 + (i >> 1) * 8 + r;
                col = kk * 16 + (i & 1) * 8;
            }
            unsigned addr = smem_addr(Bs + TileB::offset(row, col));
            if constexpr (!TRANS_B) {
                ldmatrix_x4_trans(b[2 * np][0], b[2 * np][1], b[2 * np + 1][0], b[2 * np + 1][1], addr);
            } else {
                ldmatrix_x4(b[2 * np][0], b[2 * np][1], b[2 * np + 1][0], b[2 * np + 1][1], addr);
            }
        }
        if constexpr (NT % 2 == 1) {  // odd tail: one 8-column tile with ldmatrix.x2
            const int i2 = i & 1;
            int row, col;
            if constexpr (!TRANS_B) {
                row = kk * 16 + i2 * 8 + r;
                col = wn * Acc::WN + (NT - 1) * 8;
            } else {
                row = wn * Acc::WN + (NT - 1) * 8 + r;
                col = kk * 16 + i2 * 8;
            }
            unsigned addr = smem_addr(Bs + TileB::offset(row, col));
            if constexpr (!TRANS_B) {
                ldmatrix_x2_trans(b[NT - 1][0], b[NT - 1][1], addr);
            } else {
                ldmatrix_x2(b[NT - 1][0], b[NT - 1][1], addr);
            }
        }
    }

    static __device__ __forceinline__ void mma_all(float* acc, const unsigned (&a)[MT][4],
                                                   const unsigned (&b)[NT][2]) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
            for (int nt = 0; nt < NT; ++nt) {
                // serpentine over nt keeps one B fragment live between neighbouring mmas
                int n = (mt & 1) ? NT - 1 - nt : nt;
                float(&d)[4] = *reinterpret_cast<float(*)[4]>(acc + (mt * NT + n) * 4);
                mma_k16<T>(d, a[mt], b[n][0], b[n][1]);
            }
        }
    }
};

// C[BM x BN] (acc, AccLayout) += A_smem * B_smem over one BK slice. All WARPS_M*WARPS_N
// warps of the block call it; it does not synchronize (the caller's __syncthreads() after
// the tile copies and before overwriting a stage is what orders shared-memory access).
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, class T,
          bool SWIZZLE = true>
__device__ __forceinline__ void gemm_ss(const T* As, const T* Bs, float* acc) {
    using M = MmaTile<BM, BN, BK, WARPS_M, WARPS_N, TRANS_A, TRANS_B, T, SWIZZLE>;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int wm = M::Acc::warp_m(warp), wn = M::Acc::warp_n(warp);
    // Fragments are double-buffered so the ldmatrix of step kk+1 overlaps the mma of kk.
    unsigned a[2][M::MT][4];
    unsigned b[2][M::NT][2];
    M::load_a(a[0], As, 0, wm, lane);
    M::load_b(b[0], Bs, 0, wn, lane);
#pragma unroll
    for (int kk = 0; kk < M::KT; ++kk) {
        if (kk + 1 < M::KT) {
            M::load_a(a[(kk + 1) & 1], As, kk + 1, wm, lane);
            M::load_b(b[(kk + 1) & 1], Bs, kk + 1, wn, lane);
        }
        M::mma_all(acc, a[kk & 1], b[kk & 1]);
    }
}

// A operand from registers: a_frag holds, per thread, the BM x BK A block in
// AccLayout<BM, BK, WARPS_M, 1> (the accumulator layout of a previous GEMM whose N was
// this BK, e.g. P = softmax(Q K^T)), either as float or already as T. Requires
// WARPS_N == 1 so each warp owns whole rows of A. B_smem as in gemm_ss.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_B, class T, class FragT,
          bool SWIZZLE = true>
__device__ __forceinline__ void gemm_rs(const FragT* a_frag, const T* Bs, float* acc) {
    static_assert(WARPS_N == 1, "gemm_rs needs every warp to own whole rows of A (WARPS_N == 1)");
    using M = MmaTile<BM, BN, BK, WARPS_M, WARPS_N, false, TRANS_B, T, SWIZZLE>;
    constexpr int NTA = BK / 8;  // column tiles of the A fragment
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int wn = M::Acc::warp_n(warp);
    unsigned b[2][M::NT][2];
    M::load_b(b[0], Bs, 0, wn, lane);
#pragma unroll
    for (int kk = 0; kk < M::KT; ++kk) {
        if (kk + 1 < M::KT) M::load_b(b[(kk + 1) & 1], Bs, kk + 1, wn, lane);
        unsigned a[M::MT][4];
#pragma unroll
        for (int mt = 0; mt < M::MT; ++mt) {
            // mma A regs: a0 = (g, k 2t..) = acc tile 2kk j0,1; a1 = (g+8, ..) = tile 2kk j2,3;
            // a2/a3 = the same for tile 2kk+1.
            const int base0 = (mt * NTA + 2 * kk) * 4;
            const int base1 = base0 + 4;
            if constexpr (sizeof(FragT) == 4) {
                a[mt][0] = pack_float2<T>(a_frag[base0 + 0], a_frag[base0 + 1]);
                a[mt][1] = pack_float2<T>(a_frag[base0 + 2], a_frag[base0 + 3]);
                a[mt][2] = pack_float2<T>(a_frag[base1 + 0], a_frag[base1 + 1]);
                a[mt][3] = pack_float2<T>(a_frag[base1 + 2], a_frag[base1 + 3]);
            } else {
                a[mt][0] = pack2(a_frag[base0 + 0], a_frag[base0 + 1]);
                a[mt][1] = pack2(a_frag[base0 + 2], a_frag[base0 + 3]);
                a[mt][2] = pack2(a_frag[base1 + 0], a_frag[base1 + 1]);
                a[mt][3] = pack2(a_frag[base1 + 2], a_frag[base1 + 3]);
            }
        }
        M::mma_all(acc, a, b[kk & 1]);
    }
}

}  // namespace tp
