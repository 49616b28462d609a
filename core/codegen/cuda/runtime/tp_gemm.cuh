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
// addressed as SmemTile<row length>). T is __half or __nv_bfloat16. A tile may be a column
// slice of a wider buffer (`Q_s[:, 0:D]`): LDA / LDB are then the buffer's row length (0: the
// tile's own) and COL_A / COL_B the slice's first column, so every element is addressed as the
// buffer's SmemTile places it, swizzle included.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, class T,
          bool SWIZZLE = true, int LDA = 0, int COL_A = 0, int LDB = 0, int COL_B = 0>
struct MmaTile {
    using Acc = AccLayout<BM, BN, WARPS_M, WARPS_N>;
    static constexpr int kPitchA = LDA ? LDA : (TRANS_A ? BM : BK);
    static constexpr int kPitchB = LDB ? LDB : (TRANS_B ? BK : BN);
    static_assert(COL_A % 8 == 0 && COL_B % 8 == 0, "ldmatrix reads 16-byte rows: a slice starts at a multiple of 8 columns");
    using TileA = SmemTile<kPitchA, 2, SWIZZLE>;
    using TileB = SmemTile<kPitchB, 2, SWIZZLE>;
    static constexpr int MT = Acc::MT;
    static constexpr int NT = Acc::NT;
    static constexpr int KT = BK / 16;
    static_assert(sizeof(T) == 2, "Tensor-Core operands are 16-bit here");
    static_assert(BK % 16 == 0, "block_K must be a multiple of 16");

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

// Per-thread ldmatrix offsets, computed once outside the K loop. Moving 16 rows down a
// swizzled tile adds 16*COLS elements (the XOR pattern repeats every 8 rows), so only the
// index that walks along a tile row needs a table: A: kk (or mt when TRANS_A), B: the
// column-tile pair np (or kk when TRANS_B).
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, class T,
          bool SWIZZLE = true, int LDA = 0, int COL_A = 0, int LDB = 0, int COL_B = 0>
struct GemmSS {
    using M = MmaTile<BM, BN, BK, WARPS_M, WARPS_N, TRANS_A, TRANS_B, T, SWIZZLE, LDA, COL_A, LDB, COL_B>;
    static constexpr int MT = M::MT, NT = M::NT, KT = M::KT;
    static constexpr int kATab = TRANS_A ? MT : KT;
    static constexpr int kBTab = TRANS_B ? KT : (NT + 1) / 2;
    static constexpr int kColsA = M::kPitchA;  // elements from one stored row to the next
    static constexpr int kColsB = M::kPitchB;
    int a_off[kATab];  // element offsets
    int b_off[kBTab];

    __device__ __forceinline__ GemmSS() {
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        const int wm = M::Acc::warp_m(warp), wn = M::Acc::warp_n(warp);
#pragma unroll
        for (int x = 0; x < kATab; ++x) {  // x = kk (rows advance by mt*16), or mt when TRANS_A
            const RowCol p = ldsm_a_coord(lane, wm * M::Acc::WM, COL_A, x, TRANS_A);
            a_off[x] = M::TileA::offset(p.row, p.col);
        }
#pragma unroll
        for (int x = 0; x < kBTab; ++x) {  // x = np (rows advance by kk*16), or kk when TRANS_B
            const RowCol p = ldsm_b_coord(lane, wn * M::Acc::WN, COL_B, x, NT, TRANS_B);
            b_off[x] = M::TileB::offset(p.row, p.col);
        }
    }

    __device__ __forceinline__ void load_a(unsigned (&a)[MT][4], unsigned base, int kk) const {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt) {
            const int off = TRANS_A ? a_off[mt] + kk * 16 * kColsA : a_off[kk] + mt * 16 * kColsA;
            const unsigned addr = base + 2u * off;
            if constexpr (!TRANS_A) ldmatrix_x4(a[mt][0], a[mt][1], a[mt][2], a[mt][3], addr);
            else ldmatrix_x4_trans(a[mt][0], a[mt][1], a[mt][2], a[mt][3], addr);
        }
    }
    __device__ __forceinline__ void load_b(unsigned (&b)[NT][2], unsigned base, int kk) const {
#pragma unroll
        for (int np = 0; np < NT / 2; ++np) {
            const int off = TRANS_B ? b_off[kk] + np * 16 * kColsB : b_off[np] + kk * 16 * kColsB;
            const unsigned addr = base + 2u * off;
            if constexpr (!TRANS_B) ldmatrix_x4_trans(b[2 * np][0], b[2 * np][1], b[2 * np + 1][0], b[2 * np + 1][1], addr);
            else ldmatrix_x4(b[2 * np][0], b[2 * np][1], b[2 * np + 1][0], b[2 * np + 1][1], addr);
        }
        if constexpr (NT % 2 == 1) {  // odd tail: one 8-column tile, ldmatrix.x2 (lanes 0-15)
            const int off = TRANS_B ? b_off[kk] + (NT / 2) * 16 * kColsB : b_off[NT / 2] + kk * 16 * kColsB;
            const unsigned addr = base + 2u * off;
            if constexpr (!TRANS_B) ldmatrix_x2_trans(b[NT - 1][0], b[NT - 1][1], addr);
            else ldmatrix_x2(b[NT - 1][0], b[NT - 1][1], addr);
        }
    }

    // Fragments of one k16 step; exposed so a main loop can load step 0 of the next K tile
    // while the last step of the current one is still in the Tensor Cores.
    struct Frags {
        unsigned a[MT][4];
        unsigned b[NT][2];
    };
    __device__ __forceinline__ void load(Frags& f, unsigned a_base, unsigned b_base, int kk) const {
        load_a(f.a, a_base, kk);
        load_b(f.b, b_base, kk);
    }
    static __device__ __forceinline__ void mma(float* acc, const Frags& f) { M::mma_all(acc, f.a, f.b); }

    // C += A_smem * B_smem over one BK slice. Does not synchronize: the caller's
    // __syncthreads() after the tile copies and before a stage is overwritten orders it.
    __device__ __forceinline__ void operator()(const T* As, const T* Bs, float* acc) const {
        const unsigned a_base = smem_addr(As), b_base = smem_addr(Bs);
        // Fragments are double-buffered so the ldmatrix of step kk+1 overlaps the mma of kk.
        Frags f[2];
        load(f[0], a_base, b_base, 0);
#pragma unroll
        for (int kk = 0; kk < KT; ++kk) {
            if (kk + 1 < KT) load(f[(kk + 1) & 1], a_base, b_base, kk + 1);
            mma(acc, f[kk & 1]);
        }
    }
};

// One-call form of GemmSS (offsets recomputed per call; hoist a GemmSS object out of the
// K loop in hot code). All WARPS_M*WARPS_N warps of the block call it.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, class T,
          bool SWIZZLE = true, int LDA = 0, int COL_A = 0, int LDB = 0, int COL_B = 0>
__device__ __forceinline__ void gemm_ss(const T* As, const T* Bs, float* acc) {
    GemmSS<BM, BN, BK, WARPS_M, WARPS_N, TRANS_A, TRANS_B, T, SWIZZLE, LDA, COL_A, LDB, COL_B> g;
    g(As, Bs, acc);
}

// fp8 A [BM][BK] and B [BN][BK] (both K-major: the only layout whose bytes ldmatrix can hand
// to the fp8 mma without a byte transpose) as the 16-bit view of tp::Fp8Pair: BK / 2 columns,
// one k32 mma per k16 step of the view. The tiles' SmemTile<BK, 1> swizzle is, byte for byte,
// SmemTile<BK / 2, 2>'s.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, class TA, class TB, bool SWIZZLE = true>
__device__ __forceinline__ void gemm_ss_fp8(const TA* As, const TB* Bs, float* acc) {
    static_assert(sizeof(TA) == 1 && sizeof(TB) == 1 && BK % 32 == 0, "fp8 gemm: 1-byte operands, K in steps of 32");
    using V = Fp8Pair<TA, TB>;
    gemm_ss<BM, BN, BK / 2, WARPS_M, WARPS_N, false, true, V, SWIZZLE>(reinterpret_cast<const V*>(As), reinterpret_cast<const V*>(Bs), acc);
}

// A operand from registers: a_frag holds, per thread, the BM x BK A block in
// AccLayout<BM, BK, WARPS_M, 1> (the accumulator layout of a previous GEMM whose N was
// this BK, e.g. P = softmax(Q K^T)), either as float or already as T. Requires
// WARPS_N == 1 so each warp owns whole rows of A. B_smem as in gemm_ss (a slice too).
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_B, class T, class FragT,
          bool SWIZZLE = true, int LDB = 0, int COL_B = 0>
__device__ __forceinline__ void gemm_rs(const FragT* a_frag, const T* Bs, float* acc) {
    static_assert(WARPS_N == 1, "gemm_rs needs every warp to own whole rows of A (WARPS_N == 1)");
    using G = GemmSS<BM, BN, BK, WARPS_M, WARPS_N, false, TRANS_B, T, SWIZZLE, 0, 0, LDB, COL_B>;
    using M = typename G::M;
    constexpr int NTA = BK / 8;  // column tiles of the A fragment
    const G g;                   // only its B offsets are used
    const unsigned b_base = smem_addr(Bs);
    unsigned b[2][M::NT][2];
    g.load_b(b[0], b_base, 0);
#pragma unroll
    for (int kk = 0; kk < M::KT; ++kk) {
        if (kk + 1 < M::KT) g.load_b(b[(kk + 1) & 1], b_base, kk + 1);
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
