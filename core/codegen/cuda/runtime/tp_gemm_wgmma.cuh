// T.gemm on sm_90a through wgmma, in any kernel: the code generator's general lowering of a
// gemm tile op (the warp-specialized templates keep their own main loops). One call multiplies
// one BK slice, C(BM x BN) += op(A) * op(B):
//   gemm_wgmma_ss: A (TRANS_A ? [BK][BM] : [BM][BK]) and B in shared memory
//   gemm_wgmma_rs_packed: A in the thread's registers, packed in pairs (frag_pack_operand or
//     frag_pack_pairs) from a fragment in accumulator layout (P @ V), B in shared
//   B: TRANS_B ? [BN][BK] (K-major, wgmma's default) : [BK][BN] (N-major)
// Warps: WARPS_M x WARPS_N (WARPS_M a multiple of 4), so each warpgroup owns one column block
// of WN = BN / WARPS_N and MT = BM / (16 * WARPS_M) blocks of 64 rows, MT > 1 interleaved with
// the other warpgroups' (rows t * 16 * WARPS_M + 64 * group + [0, 64)); the accumulator,
// tp::AccLayout<BM, BN, WARPS_M, WARPS_N, MT > 1>, holds for each block t the m64nWN wgmma
// accumulator at acc + t * WN / 2 (tp_wgmma.cuh). The lowering checks these rules (and says
// why at the T.gemm line when a kernel misses one); the static_asserts restate them.
// Shared operands are tp::SmemTile layouts (tp_layout.cuh), 1024-byte aligned: SWIZZLE 1 for
// rows of 16, 32 or 64 16-bit elements (wgmma's 32B, 64B and 128B swizzles), SWIZZLE 2 for
// wider tiles (128-byte panels). The call only issues its wgmma group and commits it: the
// accumulators, the packed A registers (RS) and the shared tiles stay in flight until the
// statement the lowering placed after it (transform/wgmma_waits) waits for the group with
// tp::wgmma_wait<N> and fences those registers (TileLang's wg_wait).
#pragma once

#include "tp_layout.cuh"
#include "tp_tma.cuh"
#include "tp_wgmma.cuh"

namespace tp {

// Descriptors of a [ROWS][COLS] shared operand tile of EB-byte elements (2: f16/bf16, 1: fp8).
// One k step of wgmma is 32 bytes of K (k16 of 16-bit types, k32 of fp8).
template <int ROWS, int COLS, int EB = 2>
struct WgmmaSmem {
    static constexpr int kRowBytes = COLS * EB;
    static_assert(kRowBytes == 32 || kRowBytes == 64 || kRowBytes % 128 == 0, "wgmma operand rows are 32, 64 or a multiple of 128 bytes");
    static constexpr int kPanelCols = kRowBytes >= 128 ? 128 / EB : COLS;
    static constexpr int kSwizzleBytes = kPanelCols * EB;       // 128, 64 or 32
    static constexpr int kStep = 32 / EB;                       // elements of K per wgmma
    static constexpr unsigned kAtomBytes = 8u * kSwizzleBytes;  // 8 rows: the SBO
    static constexpr unsigned kPanelBytes = unsigned(ROWS) * kSwizzleBytes;

    // K-major operand (rows are M or N, COLS is K): rows r0.. (a multiple of 8), k step k.
    // Within a swizzled row the step is a byte offset of the start address; the hardware
    // applies the swizzle to the final address.
    // Offsets are in the descriptor's 16-byte units, each term exact (panels, 8-row atoms and
    // k steps are multiples of 16 bytes), so a runtime row never needs a shift per wgmma.
    static __device__ __forceinline__ unsigned k_major_offset(int r0, int k) {
        const int col = kStep * k;
        return unsigned(col / kPanelCols) * (kPanelBytes / 16) + unsigned(r0) * (kSwizzleBytes / 16) + unsigned(col % kPanelCols) * EB / 16;
    }
    // MN-major operand (rows are K, COLS is M or N): columns c0.. (a multiple of the panel
    // width), k16 step k; the LBO steps from one panel to the next along M or N.
    static __device__ __forceinline__ unsigned mn_major_offset(int c0, int k) {
        return unsigned(c0 / kPanelCols) * (kPanelBytes / 16) + unsigned(k) * kSwizzleBytes;
    }
    // The tile's descriptor at its base, built once per gemm: every wgmma of the call then
    // only adds its offset to the start address (desc_at), one 32-bit add, instead of a
    // 64-bit address conversion, mask, shift and or per instruction.
    static __device__ __forceinline__ unsigned long long k_major_base(const void* base) {
        return wgmma_desc_swizzle(base, 16, kAtomBytes, kSwizzleBytes);
    }
    static __device__ __forceinline__ unsigned long long mn_major_base(const void* base) {
        return wgmma_desc_swizzle(base, kPanelBytes, kAtomBytes, kSwizzleBytes);
    }
    static __device__ __forceinline__ unsigned long long k_major(const void* base, int r0, int k) {
        return desc_at(k_major_base(base), k_major_offset(r0, k));
    }
    static __device__ __forceinline__ unsigned long long mn_major(const void* base, int c0, int k) {
        return desc_at(mn_major_base(base), mn_major_offset(c0, k));
    }
};

// Where this thread's warpgroup sits in the block tile: the first row of its first 64-row
// block (block t starts kMStep * t rows further) and its first column.
template <int BM, int BN, int WARPS_M, int WARPS_N>
struct WgmmaGrid {
    static_assert(WARPS_M % 4 == 0 && BM % (16 * WARPS_M) == 0, "wgmma: warpgroups own whole 64-row blocks");
    static_assert(BN % WARPS_N == 0 && (BN / WARPS_N) % 8 == 0 && BN / WARPS_N <= 256, "wgmma: N per warpgroup is a multiple of 8 up to 256");
    static constexpr int WN = BN / WARPS_N;
    static constexpr int MT = BM / (16 * WARPS_M);
    static constexpr int kMStep = 16 * WARPS_M;
    static __device__ __forceinline__ int m0(int tid) { return 16 * (((tid >> 5) % WARPS_M) & ~3); }
    static __device__ __forceinline__ int n0(int tid) { return WN * ((tid >> 5) / WARPS_M); }
};

// Two A-fragment elements as one operand register: the bits when they are already T, else
// rounded in one paired conversion.
template <class T>
__device__ __forceinline__ unsigned pack_operand(const T& lo, const T& hi) {
    return pack2(lo, hi);
}
template <class T>
__device__ __forceinline__ unsigned pack_operand(float lo, float hi) {
    return pack_float2<T>(lo, hi);
}

// ZERO: the group overwrites the accumulator (scale-d = 0 on the first k step, T.gemm's
// clear_accum) instead of adding to it. `fence` orders the threads' generic-proxy writes of the
// shared operands (cp.async, st.shared) before the tensor cores read them through the async
// proxy; tiles that only TMA writes (the producer_consumer pass's rings) need none, and the
// pass clears it for those (a fence.proxy.async per issue costs the consumer loop cycles).
// fp8 operands (1-byte T, or TB for B when it differs) take k32 steps and must both be K-major:
// TRANS_A false and TRANS_B true (ops::plan_wgmma says why at the line otherwise).
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_A, bool TRANS_B, class T, bool ZERO = false, class TB = T>
__device__ __forceinline__ void gemm_wgmma_ss(const T* A, const TB* B, float* acc, int tid, bool fence = true) {
    constexpr int EB = sizeof(T);
    static_assert(sizeof(TB) == EB && (EB == 2 || EB == 1), "wgmma here takes 16-bit or fp8 operands of one width");
    static_assert(EB == 2 || (!TRANS_A && TRANS_B), "fp8 wgmma reads both operands K-major");
    using G = WgmmaGrid<BM, BN, WARPS_M, WARPS_N>;
    using SA = WgmmaSmem<TRANS_A ? BK : BM, TRANS_A ? BM : BK, EB>;
    using SB = WgmmaSmem<TRANS_B ? BN : BK, TRANS_B ? BK : BN, EB>;
    static_assert(BK % SA::kStep == 0, "wgmma steps K by 32 bytes");
    const int m0 = G::m0(tid), n0 = G::n0(tid);
    // The tiles were written through the generic proxy (cp.async, st.shared) and the block
    // barrier ordered them; the tensor cores read through the async proxy.
    const unsigned long long a0 = TRANS_A ? SA::mn_major_base(A) : SA::k_major_base(A);
    const unsigned long long b0 = TRANS_B ? SB::k_major_base(B) : SB::mn_major_base(B);
    if (fence) fence_proxy_async();
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < BK / SA::kStep; ++k) {
        const unsigned long long db = desc_at(b0, TRANS_B ? SB::k_major_offset(n0, k) : SB::mn_major_offset(n0, k));
#pragma unroll
        for (int t = 0; t < G::MT; ++t) {
            const int m = m0 + t * G::kMStep;
            const unsigned long long da = desc_at(a0, TRANS_A ? SA::mn_major_offset(m, k) : SA::k_major_offset(m, k));
            if constexpr (EB == 1)
                wgmma_ss8<G::WN, T, TB>(acc + t * (G::WN / 2), da, db, ZERO && k == 0 ? 0 : 1);
            else
                wgmma_ss<G::WN, T, TRANS_A, TRANS_B>(acc + t * (G::WN / 2), da, db, ZERO && k == 0 ? 0 : 1);
        }
    }
    wgmma_commit();
}

// A: the thread's fragment in tp::AccLayout<BM, BK, WARPS_M, 1, MT > 1>: the 8 values of k16
// step k of row block t are a[t * BK / 2 + 8k .. + 8); elements (2i, 2i + 1) become packed word
// i of the RS operand (rounded to T from float, paired as they are from T). The caller keeps
// `dst` unchanged while a group that reads it runs.
template <int N, class T, class FragT>
__device__ __forceinline__ void frag_pack_operand(const FragT* src, unsigned* dst) {
#pragma unroll
    for (int i = 0; i < N; i += 2) dst[i / 2] = pack_operand<T>(src[i], src[i + 1]);
}

// A already packed in pairs (tp::frag_pack_pairs): the group reads the caller's registers.
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, bool TRANS_B, class T, bool ZERO = false>
__device__ __forceinline__ void gemm_wgmma_rs_packed(const unsigned* a, const T* B, float* acc, int tid, bool fence = true) {
    static_assert(sizeof(T) == 2 && BK % 16 == 0, "wgmma here takes 16-bit operands and K in steps of 16");
    static_assert(WARPS_N == 1, "gemm_wgmma_rs_packed needs every warp to own whole rows of A (WARPS_N == 1)");
    using G = WgmmaGrid<BM, BN, WARPS_M, WARPS_N>;
    using SB = WgmmaSmem<TRANS_B ? BN : BK, TRANS_B ? BK : BN>;
    const int n0 = G::n0(tid);
    const unsigned long long b0 = TRANS_B ? SB::k_major_base(B) : SB::mn_major_base(B);
    if (fence) fence_proxy_async();
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < BK / 16; ++k) {
        const unsigned long long db = desc_at(b0, TRANS_B ? SB::k_major_offset(n0, k) : SB::mn_major_offset(n0, k));
#pragma unroll
        for (int t = 0; t < G::MT; ++t) wgmma_rs<G::WN, T, TRANS_B>(acc + t * (G::WN / 2), a + t * (BK / 4) + 4 * k, db, ZERO && k == 0 ? 0 : 1);
    }
    wgmma_commit();
}

// Float fragment elements (2i, 2i + 1) rounded into packed word i of an RS operand fragment.
template <int N, class T>
__device__ __forceinline__ void frag_pack_pairs(const float* src, unsigned* dst) {
#pragma unroll
    for (int i = 0; i < N; i += 2) dst[i / 2] = pack_float2<T>(src[i], src[i + 1]);
}

}  // namespace tp
