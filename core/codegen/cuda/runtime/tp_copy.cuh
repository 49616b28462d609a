// Tile copies for the Tensor-Core path: cp.async 16-byte global->shared copies with
// zero-fill predication for boundary tiles (sm_80+; synchronous fallback on sm_75),
// commit/wait groups, register-staged copies for sm_75 pipelines, element-wise copies for
// unaligned strides, shared->global, and fragment (accumulator layout) <-> global/shared.
// Tiles are addressed through tp::SmemTile so the swizzle matches what tp::gemm_* reads.
#pragma once

#include "tp_layout.cuh"
#include "tp_mma.cuh"

namespace tp {

// --- scalar conversions used by fragment copies and epilogues --------------------------
__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half from_float<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
    return __float2bfloat16_rn(v);
}
// Integer tiles (packed quantized weights) take the zero of an edge tile the same way.
template <>
__device__ __forceinline__ unsigned char from_float<unsigned char>(float v) { return static_cast<unsigned char>(v); }
template <>
__device__ __forceinline__ signed char from_float<signed char>(float v) { return static_cast<signed char>(v); }
template <>
__device__ __forceinline__ unsigned short from_float<unsigned short>(float v) { return static_cast<unsigned short>(v); }
template <>
__device__ __forceinline__ short from_float<short>(float v) { return static_cast<short>(v); }
template <>
__device__ __forceinline__ int from_float<int>(float v) { return static_cast<int>(v); }
template <>
__device__ __forceinline__ unsigned int from_float<unsigned int>(float v) { return static_cast<unsigned int>(v); }
#ifdef TP_FP8_TYPES  // sm_89+: fp8 accumulator stores (saturating round to nearest, as casts)
__device__ __forceinline__ float to_float(fp8_e4_t v) { return static_cast<float>(v); }
__device__ __forceinline__ float to_float(fp8_e5_t v) { return static_cast<float>(v); }
template <>
__device__ __forceinline__ fp8_e4_t from_float<fp8_e4_t>(float v) { return fp8_e4_t(v); }
template <>
__device__ __forceinline__ fp8_e5_t from_float<fp8_e5_t>(float v) { return fp8_e5_t(v); }
#endif

// --- cp.async primitives --------------------------------------------------------------
// Copies src_bytes (0..16) from gmem and zero-fills the rest of the 16-byte smem chunk.
// Both addresses must be 16-byte aligned; with src_bytes == 0 gmem is not read but must
// still be a valid address (pass the tile origin).
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem)), "l"(gmem),
                 "r"(src_bytes));
#else
    // sm_75: no cp.async; copy through registers (completes before returning).
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    if (src_bytes == 16) {
        v = *reinterpret_cast<const uint4*>(gmem);
    } else if (src_bytes > 0) {
        // partial chunk: 16-bit loads assembled with constant indices (stays in registers)
        const unsigned short* src = reinterpret_cast<const unsigned short*>(gmem);
        unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
        for (int e = 0; e < 8; ++e)
            if (2 * e < src_bytes) w[e / 2] |= static_cast<unsigned>(src[e]) << (16 * (e % 2));
        v = make_uint4(w[0], w[1], w[2], w[3]);
    }
    *reinterpret_cast<uint4*>(smem) = v;
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
// Waits until at most N committed groups of this thread are still in flight. A
// __syncthreads() must follow before other threads read the data.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

// --- global -> shared tile copy, 16-byte chunks ----------------------------------------
// Copies a ROWS x COLS tile whose origin is g (row stride ld elements) into smem laid out
// as SmemTile<COLS, sizeof(T), SWIZZLE, ROWS> (SWIZZLE 0: row-major, 1: swizzled rows, 2:
// swizzled 128-byte panels, the layout wgmma reads; the same argument for every tile call). Rows >= rows_valid and columns >= cols_valid are zero-filled, so
// boundary tiles need no other special casing. Preconditions: COLS*sizeof(T) % 16 == 0,
// ld % (16/sizeof(T)) == 0, g 16-byte aligned (else use copy_g2s_elementwise). All
// THREADS threads of the block call it with their tid. Asynchronous on sm_80+: commit,
// wait and __syncthreads() before reading smem. IN_BOUNDS = true promises a whole tile
// (the code generator knows it for static shapes that divide), which drops all predicates.
template <int ROWS, int COLS, int THREADS, class T, int SWIZZLE = 1, bool IN_BOUNDS = false>
__device__ __forceinline__ void copy_g2s_async(T* smem, const T* g, int ld, int rows_valid,
                                               int cols_valid, int tid) {
    using Tile = SmemTile<COLS, sizeof(T), SWIZZLE, ROWS>;
    constexpr int kVec = Tile::kVec;
    constexpr int kChunks = COLS / kVec;
    constexpr int kTotal = ROWS * kChunks;
    constexpr int kIters = (kTotal + THREADS - 1) / THREADS;
    static_assert(COLS % kVec == 0, "tile rows must be whole 16-byte chunks");
    // Regular case: every thread keeps its chunk column and steps down kRowStep rows per
    // iteration; with kRowStep % 8 == 0 the swizzle repeats, so smem offsets are
    // compile-time increments and the global pointer advances by kRowStep * ld.
    constexpr bool kRegular = THREADS % kChunks == 0 && (kIters == 1 || (THREADS / kChunks) % 8 == 0);
    const bool full = IN_BOUNDS || (rows_valid >= ROWS && cols_valid >= COLS);
    if constexpr (kRegular) {
        constexpr int kRowStep = THREADS / kChunks;
        const RowCol first = g2s_chunk(tid, kChunks);  // it = 0; later ones kRowStep rows down
        const int r0 = first.row;
        const int c = first.col * kVec;
        T* s = smem + Tile::offset(r0, c);
        const T* gp = g + r0 * ld + c;
        const long long gstep = static_cast<long long>(kRowStep) * ld;
        if (full) {
#pragma unroll
            for (int it = 0; it < kIters; ++it) {
                if (ROWS % kRowStep != 0 && r0 + it * kRowStep >= ROWS) break;
                cp_async_16(s + it * kRowStep * Tile::kPitch, gp + it * gstep, 16);
            }
        } else {
            int n = cols_valid - c;
            n = n < 0 ? 0 : (n > kVec ? kVec : n);
#pragma unroll
            for (int it = 0; it < kIters; ++it) {
                const int r = r0 + it * kRowStep;
                if (ROWS % kRowStep != 0 && r >= ROWS) break;
                const bool ok = r < rows_valid && n > 0;
                cp_async_16(s + it * kRowStep * Tile::kPitch, ok ? gp + it * gstep : g,
                            ok ? n * static_cast<int>(sizeof(T)) : 0);
            }
        }
    } else {
#pragma unroll
        for (int it = 0; it < kIters; ++it) {
            int idx = tid + it * THREADS;
            if (kTotal % THREADS != 0 && idx >= kTotal) break;
            const RowCol rc = g2s_chunk(idx, kChunks);
            int r = rc.row;
            int c = rc.col * kVec;
            int n = r < rows_valid ? cols_valid - c : 0;
            n = full ? kVec : (n < 0 ? 0 : (n > kVec ? kVec : n));
            cp_async_16(smem + Tile::offset(r, c), n > 0 ? g + r * ld + c : g,
                        n * static_cast<int>(sizeof(T)));
        }
    }
}

// Element-wise variant for any stride/alignment (synchronous, predicated per element).
template <int ROWS, int COLS, int THREADS, class T, int SWIZZLE = 1>
__device__ __forceinline__ void copy_g2s_elementwise(T* smem, const T* g, int ld, int rows_valid,
                                                     int cols_valid, int tid) {
    using Tile = SmemTile<COLS, sizeof(T), SWIZZLE, ROWS>;
    for (int idx = tid; idx < ROWS * COLS; idx += THREADS) {
        int r = idx / COLS;
        int c = idx % COLS;
        T v = (r < rows_valid && c < cols_valid) ? g[r * ld + c] : from_float<T>(0.0f);
        smem[Tile::offset(r, c)] = v;
    }
}

// Picks the 16-byte path when stride and base allow it (a uniform branch). IN_BOUNDS =
// true: the caller guarantees a whole tile, a 16-byte aligned g and ld % (16/sizeof(T)) == 0.
template <int ROWS, int COLS, int THREADS, class T, int SWIZZLE = 1, bool IN_BOUNDS = false>
__device__ __forceinline__ void copy_g2s(T* smem, const T* g, int ld, int rows_valid, int cols_valid,
                                         int tid) {
    constexpr int kVec = 16 / static_cast<int>(sizeof(T));
    if constexpr (IN_BOUNDS) {
        copy_g2s_async<ROWS, COLS, THREADS, T, SWIZZLE, true>(smem, g, ld, rows_valid, cols_valid, tid);
    } else if (ld % kVec == 0 && (reinterpret_cast<unsigned long long>(g) & 15ull) == 0) {
        copy_g2s_async<ROWS, COLS, THREADS, T, SWIZZLE>(smem, g, ld, rows_valid, cols_valid, tid);
    } else {
        copy_g2s_elementwise<ROWS, COLS, THREADS, T, SWIZZLE>(smem, g, ld, rows_valid, cols_valid, tid);
    }
}

// --- register-staged copies (sm_75 pipelines, which have no cp.async) -----------------
// copy_g2r loads the next ROWS x COLS tile into registers before the mma work on the
// current one, copy_r2s stores it into the other shared buffer afterwards (then one
// __syncthreads()), so the global loads are in flight while the Tensor Cores run. The
// registers are RegStage<...>::kRegs unsigned words per thread, one 16-byte chunk per 4:
// the code generator declares them as a local array. Same chunk-to-thread mapping for both
// calls (chunk idx = tid + it * THREADS) and the same zero-fill rules as copy_g2s_async;
// any stride (16-byte loads where ld and g allow, else element loads). Elements of 1, 2 or
// 4 bytes. IN_BOUNDS = true promises a whole tile with 16-byte aligned rows (no predicates);
// copy_r2s takes the same template arguments so a pair shares one argument list.
template <class T>
__device__ __forceinline__ unsigned raw_bits(const T& v) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "register staging packs 1, 2 or 4-byte elements");
    if constexpr (sizeof(T) == 1) return static_cast<unsigned>(*reinterpret_cast<const unsigned char*>(&v));
    else if constexpr (sizeof(T) == 2) return static_cast<unsigned>(*reinterpret_cast<const unsigned short*>(&v));
    else return *reinterpret_cast<const unsigned*>(&v);
}

template <int ROWS, int COLS, int THREADS, class T, int SWIZZLE = 1>
struct RegStage {
    using Tile = SmemTile<COLS, sizeof(T), SWIZZLE, ROWS>;
    static constexpr int kVec = Tile::kVec;
    static constexpr int kChunks = COLS / kVec;
    static constexpr int kTotal = ROWS * kChunks;
    static constexpr int kIters = (kTotal + THREADS - 1) / THREADS;
    static constexpr int kRegs = 4 * kIters;
    static_assert(COLS % kVec == 0, "tile rows must be whole 16-byte chunks");
};

template <int ROWS, int COLS, int THREADS, class T, int SWIZZLE = 1, bool IN_BOUNDS = false>
__device__ __forceinline__ void copy_g2r(unsigned* regs, const T* g, int ld, int rows_valid, int cols_valid, int tid) {
    using S = RegStage<ROWS, COLS, THREADS, T, SWIZZLE>;
    constexpr int kVec = S::kVec;
    constexpr int kPer = 4 / static_cast<int>(sizeof(T));  // elements per 32-bit word
    const bool vec = IN_BOUNDS || (ld % kVec == 0 && (reinterpret_cast<unsigned long long>(g) & 15ull) == 0);
    const bool full = IN_BOUNDS || (rows_valid >= ROWS && cols_valid >= COLS);
#pragma unroll
    for (int it = 0; it < S::kIters; ++it) {
        const int idx = tid + it * THREADS;
        uint4 v = make_uint4(0u, 0u, 0u, 0u);
        if (S::kTotal % THREADS == 0 || idx < S::kTotal) {
            const int r = idx / S::kChunks;
            const int c = (idx % S::kChunks) * kVec;
            const T* src = g + static_cast<long long>(r) * ld + c;
            int n = full ? kVec : (r < rows_valid ? cols_valid - c : 0);
            if (vec && n >= kVec) {
                v = *reinterpret_cast<const uint4*>(src);
            } else if (n > 0) {
                unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
                for (int e = 0; e < kVec; ++e)
                    if (e < n) w[e / kPer] |= raw_bits(src[e]) << (8 * static_cast<int>(sizeof(T)) * (e % kPer));
                v = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
        regs[4 * it + 0] = v.x;
        regs[4 * it + 1] = v.y;
        regs[4 * it + 2] = v.z;
        regs[4 * it + 3] = v.w;
    }
}

template <int ROWS, int COLS, int THREADS, class T, int SWIZZLE = 1, bool IN_BOUNDS = false>
__device__ __forceinline__ void copy_r2s(const unsigned* regs, T* smem, int tid) {
    using S = RegStage<ROWS, COLS, THREADS, T, SWIZZLE>;
#pragma unroll
    for (int it = 0; it < S::kIters; ++it) {
        const int idx = tid + it * THREADS;
        if (S::kTotal % THREADS != 0 && idx >= S::kTotal) break;
        const RowCol rc = g2s_chunk(idx, S::kChunks);
        const int r = rc.row;
        const int c = rc.col * S::kVec;
        *reinterpret_cast<uint4*>(smem + S::Tile::offset(r, c)) =
            make_uint4(regs[4 * it + 0], regs[4 * it + 1], regs[4 * it + 2], regs[4 * it + 3]);
    }
}

// The same as an object owning its registers (hand-written kernels: tests/gpu_kernels).
template <int ROWS, int COLS, int THREADS, class T, int SWIZZLE = 1>
struct RegStagedCopy {
    unsigned regs[RegStage<ROWS, COLS, THREADS, T, SWIZZLE>::kRegs];
    __device__ __forceinline__ void load(const T* g, int ld, int rows_valid, int cols_valid, int tid) {
        copy_g2r<ROWS, COLS, THREADS, T, SWIZZLE>(regs, g, ld, rows_valid, cols_valid, tid);
    }
    __device__ __forceinline__ void store(T* smem, int tid) const {
        copy_r2s<ROWS, COLS, THREADS, T, SWIZZLE>(regs, smem, tid);
    }
};

// --- shared -> global ------------------------------------------------------------------
// Writes the valid part of a ROWS x COLS SmemTile to g (row stride ld); 16-byte stores
// where a whole chunk is valid and aligned, element stores at the edges.
template <int ROWS, int COLS, int THREADS, class T, int SWIZZLE = 1>
__device__ __forceinline__ void copy_s2g(const T* smem, T* g, int ld, int rows_valid, int cols_valid,
                                         int tid) {
    using Tile = SmemTile<COLS, sizeof(T), SWIZZLE, ROWS>;
    constexpr int kVec = Tile::kVec;
    static_assert(COLS % kVec == 0, "tile rows must be whole 16-byte chunks");
    constexpr int kChunks = COLS / kVec;
    const bool vec_ok = ld % kVec == 0 && (reinterpret_cast<unsigned long long>(g) & 15ull) == 0;
    for (int idx = tid; idx < ROWS * kChunks; idx += THREADS) {
        const RowCol rc = g2s_chunk(idx, kChunks);  // the chunks of copy_g2s_async, read back
        const int r = rc.row;
        const int c = rc.col * kVec;
        if (r >= rows_valid || c >= cols_valid) continue;
        const T* src = smem + Tile::offset(r, c);
        if (vec_ok && c + kVec <= cols_valid) {
            *reinterpret_cast<uint4*>(g + r * ld + c) = *reinterpret_cast<const uint4*>(src);
        } else {
            for (int e = 0; e < kVec && c + e < cols_valid; ++e) g[r * ld + c + e] = src[e];
        }
    }
}

// --- fragment (AccLayout L) <-> global / shared ------------------------------------------
// g points at the block tile origin; element (row, col) of the block lives at g[row*ld+col].
// Adjacent column pairs go out as one 2-element store when in bounds and aligned.
// IN_BOUNDS = true: the whole block tile is inside the output and ld, g are pair-aligned.
template <class L, bool IN_BOUNDS = false, class FragT, class OutT>
__device__ __forceinline__ void frag_store_global(const FragT* frag, OutT* g, int ld, int rows_valid,
                                                  int cols_valid, int tid) {
    const bool pair_ok =
        IN_BOUNDS || (ld % 2 == 0 && (reinterpret_cast<unsigned long long>(g) % (2 * sizeof(OutT))) == 0);
    if (IN_BOUNDS) rows_valid = cols_valid = 1 << 30;
#pragma unroll
    for (int i = 0; i < L::kSize; i += 2) {
        int r = L::row(tid, i);
        int c = L::col(tid, i);
        if (r >= rows_valid) continue;
        OutT v0 = from_float<OutT>(to_float(frag[i]));
        OutT v1 = from_float<OutT>(to_float(frag[i + 1]));
        if (pair_ok && c + 1 < cols_valid) {
            if constexpr (sizeof(OutT) == 1) {  // fp8: the two bytes as one 16-bit store
                const unsigned lo = reinterpret_cast<const unsigned char&>(v0), hi = reinterpret_cast<const unsigned char&>(v1);
                *reinterpret_cast<unsigned short*>(g + r * ld + c) = static_cast<unsigned short>(lo | (hi << 8));
            } else if constexpr (sizeof(OutT) == 2) {
                *reinterpret_cast<unsigned*>(g + r * ld + c) = pack2(v0, v1);
            } else {
                static_assert(sizeof(OutT) == 4, "frag_store_global writes 8-, 16- or 32-bit elements");
                *reinterpret_cast<float2*>(g + r * ld + c) = make_float2(v0, v1);
            }
        } else {
            if (c < cols_valid) g[r * ld + c] = v0;
            if (c + 1 < cols_valid) g[r * ld + c + 1] = v1;
        }
    }
}

template <class L, class FragT, class InT>
__device__ __forceinline__ void frag_load_global(FragT* frag, const InT* g, int ld, int rows_valid,
                                                 int cols_valid, int tid) {
#pragma unroll
    for (int i = 0; i < L::kSize; ++i) {
        int r = L::row(tid, i);
        int c = L::col(tid, i);
        float v = (r < rows_valid && c < cols_valid) ? to_float(g[r * ld + c]) : 0.0f;
        frag[i] = from_float<FragT>(v);
    }
}

// Shared tile with COLS columns (SmemTile<COLS, sizeof(T), SWIZZLE> addressing).
template <class L, int COLS, int SWIZZLE, class FragT, class T>
__device__ __forceinline__ void frag_store_smem(const FragT* frag, T* smem, int tid) {
    using Tile = SmemTile<COLS, sizeof(T), SWIZZLE, L::kBM>;
#pragma unroll
    for (int i = 0; i < L::kSize; i += 2) {
        int r = L::row(tid, i);
        int c = L::col(tid, i);
        T v0 = from_float<T>(to_float(frag[i]));
        T v1 = from_float<T>(to_float(frag[i + 1]));
        if constexpr (sizeof(T) == 2) {
            // c is even and chunks hold >= 2 elements, so the pair stays contiguous.
            *reinterpret_cast<unsigned*>(smem + Tile::offset(r, c)) = pack2(v0, v1);
        } else {
            smem[Tile::offset(r, c)] = v0;
            smem[Tile::offset(r, c + 1)] = v1;
        }
    }
}

template <class L, int COLS, int SWIZZLE, class FragT, class T>
__device__ __forceinline__ void frag_load_smem(FragT* frag, const T* smem, int tid) {
    using Tile = SmemTile<COLS, sizeof(T), SWIZZLE, L::kBM>;
#pragma unroll
    for (int i = 0; i < L::kSize; ++i) {
        frag[i] = from_float<FragT>(to_float(smem[Tile::offset(L::row(tid, i), L::col(tid, i))]));
    }
}

// A 16-bit tile into the packed pairs of an RS wgmma operand (FragmentLowering::packed):
// elements 2i and 2i + 1 of the layout are adjacent columns of one row, an even one, and the
// swizzle moves whole 16-byte chunks, so each pair is one aligned 32-bit load.
template <class L, int COLS, int SWIZZLE, class T>
__device__ __forceinline__ void frag_load_smem_packed(unsigned* dst, const T* smem, int tid) {
    static_assert(sizeof(T) == 2 && L::kSize % 2 == 0, "packed pairs of a 16-bit fragment");
    using Tile = SmemTile<COLS, sizeof(T), SWIZZLE, L::kBM>;
#pragma unroll
    for (int i = 0; i < L::kSize; i += 2) dst[i / 2] = *reinterpret_cast<const unsigned*>(smem + Tile::offset(L::row(tid, i), L::col(tid, i)));
}

template <class FragT, int N>
__device__ __forceinline__ void fill(FragT (&frag)[N], float v) {
#pragma unroll
    for (int i = 0; i < N; ++i) frag[i] = from_float<FragT>(v);
}

}  // namespace tp
