// Reductions over accumulator fragments (T.reduce_max/sum/min/abssum/absmax on a
// fragment in tp::AccLayout): per-thread partials, quad/column warp shuffles, and shared
// memory across warps. Results land in "row vectors" (dim=1, one value per block row) or
// "column vectors" (dim=0), replicated in every thread that holds that row / column.
#pragma once

#include "tp_copy.cuh"
#include "tp_layout.cuh"

namespace tp {

enum class ReduceOp : int { Sum = 0, Max = 1, Min = 2, AbsSum = 3, AbsMax = 4 };

template <ReduceOp OP>
struct Reducer {
    static __device__ __forceinline__ float init() {
        if constexpr (OP == ReduceOp::Max) return -__int_as_float(0x7f800000);  // -inf
        if constexpr (OP == ReduceOp::Min) return __int_as_float(0x7f800000);   // +inf
        return 0.0f;  // Sum, AbsSum, and AbsMax (|x| >= 0)
    }
    // Applied to each input element before combining (abs for the Abs* ops).
    static __device__ __forceinline__ float elem(float x) {
        if constexpr (OP == ReduceOp::AbsSum || OP == ReduceOp::AbsMax) return fabsf(x);
        return x;
    }
    static __device__ __forceinline__ float combine(float a, float b) {
        if constexpr (OP == ReduceOp::Max || OP == ReduceOp::AbsMax) return fmaxf(a, b);
        if constexpr (OP == ReduceOp::Min) return fminf(a, b);
        return a + b;
    }
};

// dim=1: out[s] (s < L::kRowSlots) = reduction over all BN columns of block row
// L::slot_row(tid, s). CLEAR=false folds the previous out[s] in (TileLang's clear=False).
// scratch: WARPS_N * BM floats of shared memory, unused (may be null) when WARPS_N == 1.
// With WARPS_N > 1 every thread of the block must call it (it holds two __syncthreads()).
template <class L, ReduceOp OP, bool CLEAR = true, class FragT>
__device__ __forceinline__ void reduce_rows(const FragT* frag, float* out, float* scratch, int tid) {
    using R = Reducer<OP>;
    float v[L::kRowSlots];
#pragma unroll
    for (int s = 0; s < L::kRowSlots; ++s) {
        const int mt = s / 2, h = s % 2;
        float acc = R::init();
#pragma unroll
        for (int nt = 0; nt < L::NT; ++nt) {
            const int i = (mt * L::NT + nt) * 4 + h * 2;
            acc = R::combine(acc, R::elem(to_float(frag[i])));
            acc = R::combine(acc, R::elem(to_float(frag[i + 1])));
        }
        // the 4 lanes of a quad hold the same rows
        acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, 1));
        acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, 2));
        v[s] = acc;
    }
    if constexpr (L::kWarpsN > 1) {
        const int wn = L::warp_n(tid / 32);
        if ((tid & 3) == 0) {
#pragma unroll
            for (int s = 0; s < L::kRowSlots; ++s) scratch[wn * L::kBM + L::slot_row(tid, s)] = v[s];
        }
        __syncthreads();
#pragma unroll
        for (int s = 0; s < L::kRowSlots; ++s) {
            float acc = R::init();
#pragma unroll
            for (int w = 0; w < L::kWarpsN; ++w)
                acc = R::combine(acc, scratch[w * L::kBM + L::slot_row(tid, s)]);
            v[s] = acc;
        }
        __syncthreads();  // scratch may be reused right after
    }
#pragma unroll
    for (int s = 0; s < L::kRowSlots; ++s) out[s] = CLEAR ? v[s] : R::combine(out[s], v[s]);
}

// dim=0: out[s] (s < L::kColSlots) = reduction over all BM rows of block column
// L::slot_col(tid, s). scratch: WARPS_M * BN floats when WARPS_M > 1.
template <class L, ReduceOp OP, bool CLEAR = true, class FragT>
__device__ __forceinline__ void reduce_cols(const FragT* frag, float* out, float* scratch, int tid) {
    using R = Reducer<OP>;
    float v[L::kColSlots];
#pragma unroll
    for (int s = 0; s < L::kColSlots; ++s) {
        const int nt = s / 2, jj = s % 2;
        float acc = R::init();
#pragma unroll
        for (int mt = 0; mt < L::MT; ++mt) {
            const int i = (mt * L::NT + nt) * 4 + jj;
            acc = R::combine(acc, R::elem(to_float(frag[i])));
            acc = R::combine(acc, R::elem(to_float(frag[i + 2])));
        }
        // lanes with equal lane%4 hold the same columns
        acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, 4));
        acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, 8));
        acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, 16));
        v[s] = acc;
    }
    if constexpr (L::kWarpsM > 1) {
        const int wm = L::warp_m(tid / 32);
        if ((tid & 31) < 4) {
#pragma unroll
            for (int s = 0; s < L::kColSlots; ++s) scratch[wm * L::kBN + L::slot_col(tid, s)] = v[s];
        }
        __syncthreads();
#pragma unroll
        for (int s = 0; s < L::kColSlots; ++s) {
            float acc = R::init();
#pragma unroll
            for (int w = 0; w < L::kWarpsM; ++w) acc = R::combine(acc, scratch[w * L::kBN + L::slot_col(tid, s)]);
            v[s] = acc;
        }
        __syncthreads();
    }
#pragma unroll
    for (int s = 0; s < L::kColSlots; ++s) out[s] = CLEAR ? v[s] : R::combine(out[s], v[s]);
}

}  // namespace tp
