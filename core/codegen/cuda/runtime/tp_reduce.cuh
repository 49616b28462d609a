// Reductions over accumulator fragments (T.reduce_max/sum/min/abssum/absmax on a
// fragment in tp::AccLayout): per-thread partials, quad/column warp shuffles, and shared
// memory across warps. Results land in "row vectors" (dim=1, one value per block row) or
// "column vectors" (dim=0), replicated in every thread that holds that row / column.
// Float fragments reduce in fp32, integer fragments in int / unsigned (tp::ReduceAccum); the
// output vector may be of another type (converted once, on the store).
#pragma once

#include "tp_copy.cuh"
#include "tp_layout.cuh"

namespace tp {

enum class ReduceOp : int { Sum = 0, Max = 1, Min = 2, AbsSum = 3, AbsMax = 4 };

// The type partials are combined in, from the fragment's element type: float for the float
// types (fp16/bf16 inputs accumulate in fp32), int / unsigned for integer fragments (exact
// max/min, and sums that wrap like the integer type; e.g. TileLang's top-k reduces int32
// column indices). Always 4 bytes, so the cross-warp exchange reuses the float scratch.
template <class T> struct ReduceAccum { using type = float; static constexpr bool kFloat = true; };
template <> struct ReduceAccum<int> { using type = int; static constexpr bool kFloat = false; };
template <> struct ReduceAccum<short> { using type = int; static constexpr bool kFloat = false; };
template <> struct ReduceAccum<signed char> { using type = int; static constexpr bool kFloat = false; };
template <> struct ReduceAccum<unsigned> { using type = unsigned; static constexpr bool kFloat = false; };
template <> struct ReduceAccum<unsigned short> { using type = unsigned; static constexpr bool kFloat = false; };
template <> struct ReduceAccum<unsigned char> { using type = unsigned; static constexpr bool kFloat = false; };

template <class V> struct ReduceLimits;  // identity elements of max (lowest) and min (highest)
template <> struct ReduceLimits<float> {
    static __device__ __forceinline__ float lowest() { return -__int_as_float(0x7f800000); }  // -inf
    static __device__ __forceinline__ float highest() { return __int_as_float(0x7f800000); }  // +inf
};
template <> struct ReduceLimits<int> {
    static __device__ __forceinline__ int lowest() { return -2147483647 - 1; }
    static __device__ __forceinline__ int highest() { return 2147483647; }
};
template <> struct ReduceLimits<unsigned> {
    static __device__ __forceinline__ unsigned lowest() { return 0u; }
    static __device__ __forceinline__ unsigned highest() { return 0xffffffffu; }
};

template <ReduceOp OP, class V = float>
struct Reducer {
    static_assert(sizeof(V) == 4, "reductions combine 4-byte partials");
    static __device__ __forceinline__ V init() {
        if constexpr (OP == ReduceOp::Max) return ReduceLimits<V>::lowest();
        if constexpr (OP == ReduceOp::Min) return ReduceLimits<V>::highest();
        return V(0);  // Sum, AbsSum, and AbsMax (|x| >= 0)
    }
    // Applied to each input element before combining (abs for the Abs* ops).
    static __device__ __forceinline__ V elem(V x) {
        if constexpr (OP == ReduceOp::AbsSum || OP == ReduceOp::AbsMax) {
            if constexpr (ReduceAccum<V>::kFloat) return fabsf(x);
            else return x < V(0) ? V(0) - x : x;
        }
        return x;
    }
    static __device__ __forceinline__ V combine(V a, V b) {
        if constexpr (ReduceAccum<V>::kFloat) {
            if constexpr (OP == ReduceOp::Max || OP == ReduceOp::AbsMax) return fmaxf(a, b);
            if constexpr (OP == ReduceOp::Min) return fminf(a, b);
        } else {
            if constexpr (OP == ReduceOp::Max || OP == ReduceOp::AbsMax) return a < b ? b : a;
            if constexpr (OP == ReduceOp::Min) return b < a ? b : a;
        }
        return a + b;
    }
};

// A fragment element as a partial of type V, and a partial as an output element.
template <class V, class T>
__device__ __forceinline__ V reduce_in(const T& x) {
    if constexpr (ReduceAccum<T>::kFloat) return static_cast<V>(to_float(x));
    else return static_cast<V>(x);
}
template <class OutT, class V>
__device__ __forceinline__ OutT reduce_out(V v) {
    if constexpr (ReduceAccum<OutT>::kFloat) return from_float<OutT>(static_cast<float>(v));
    else return static_cast<OutT>(v);
}
// out = v (CLEAR) or out combined with v, in the partials' type.
template <ReduceOp OP, bool CLEAR, class V, class OutT>
__device__ __forceinline__ void reduce_store(OutT& out, V v) {
    if constexpr (CLEAR) {
        out = reduce_out<OutT>(v);
    } else {
        V old;
        if constexpr (ReduceAccum<OutT>::kFloat) old = static_cast<V>(to_float(out));
        else old = static_cast<V>(out);
        out = reduce_out<OutT>(Reducer<OP, V>::combine(old, v));
    }
}

// dim=1: out[s] (s < L::kRowSlots) = reduction over all BN columns of block row
// L::slot_row(tid, s). CLEAR=false folds the previous out[s] in (TileLang's clear=False).
// scratch: WARPS_N * BM floats of shared memory, unused (may be null) when WARPS_N == 1.
// With WARPS_N > 1 every thread of the layout must call it (two tp::sync_threads).
// OutT: float, half, bfloat16 or an integer type (converted once, on the store).
template <class L, ReduceOp OP, bool CLEAR = true, class FragT, class OutT>
__device__ __forceinline__ void reduce_rows(const FragT* frag, OutT* out, float* scratch_f, int tid) {
    using V = typename ReduceAccum<FragT>::type;
    using R = Reducer<OP, V>;
    V* scratch = reinterpret_cast<V*>(scratch_f);
    V v[L::kRowSlots];
#pragma unroll
    for (int s = 0; s < L::kRowSlots; ++s) {
        const int mt = s / 2, h = s % 2;
        V acc = R::init();
#pragma unroll
        for (int nt = 0; nt < L::NT; ++nt) {
            const int i = (mt * L::NT + nt) * 4 + h * 2;
            acc = R::combine(acc, R::elem(reduce_in<V>(frag[i])));
            acc = R::combine(acc, R::elem(reduce_in<V>(frag[i + 1])));
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
        sync_threads<L::kThreads>();
#pragma unroll
        for (int s = 0; s < L::kRowSlots; ++s) {
            V acc = R::init();
#pragma unroll
            for (int w = 0; w < L::kWarpsN; ++w)
                acc = R::combine(acc, scratch[w * L::kBM + L::slot_row(tid, s)]);
            v[s] = acc;
        }
        sync_threads<L::kThreads>();  // scratch may be reused right after
    }
#pragma unroll
    for (int s = 0; s < L::kRowSlots; ++s) reduce_store<OP, CLEAR>(out[s], v[s]);
}

// dim=0: out[s] (s < L::kColSlots) = reduction over all BM rows of block column
// L::slot_col(tid, s). scratch: WARPS_M * BN floats when WARPS_M > 1.
template <class L, ReduceOp OP, bool CLEAR = true, class FragT, class OutT>
__device__ __forceinline__ void reduce_cols(const FragT* frag, OutT* out, float* scratch_f, int tid) {
    using V = typename ReduceAccum<FragT>::type;
    using R = Reducer<OP, V>;
    V* scratch = reinterpret_cast<V*>(scratch_f);
    V v[L::kColSlots];
#pragma unroll
    for (int s = 0; s < L::kColSlots; ++s) {
        const int nt = s / 2, jj = s % 2;
        V acc = R::init();
#pragma unroll
        for (int mt = 0; mt < L::MT; ++mt) {
            const int i = (mt * L::NT + nt) * 4 + jj;
            acc = R::combine(acc, R::elem(reduce_in<V>(frag[i])));
            acc = R::combine(acc, R::elem(reduce_in<V>(frag[i + 2])));
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
        sync_threads<L::kThreads>();
#pragma unroll
        for (int s = 0; s < L::kColSlots; ++s) {
            V acc = R::init();
#pragma unroll
            for (int w = 0; w < L::kWarpsM; ++w) acc = R::combine(acc, scratch[w * L::kBN + L::slot_col(tid, s)]);
            v[s] = acc;
        }
        sync_threads<L::kThreads>();
    }
#pragma unroll
    for (int s = 0; s < L::kColSlots; ++s) reduce_store<OP, CLEAR>(out[s], v[s]);
}


// A column vector (an accumulator's per-column values, L's Col layout) reduced to one value
// every thread holds: a thread's own columns, then the lanes of its row group that hold the
// other columns (lane % 4), then the warps along N through scratch (kWarps values). The copies
// of a column in the other row groups and warps along M are left out, so a sum counts each
// column once.
template <class L, ReduceOp OP, bool CLEAR = true, class FragT, class OutT>
__device__ __forceinline__ void reduce_col_vector(const FragT* frag, OutT* out, float* scratch_f, int tid) {
    using V = typename ReduceAccum<FragT>::type;
    using R = Reducer<OP, V>;
    V* scratch = reinterpret_cast<V*>(scratch_f);
    V acc = R::init();
#pragma unroll
    for (int s = 0; s < L::kColSlots; ++s) acc = R::combine(acc, R::elem(reduce_in<V>(frag[s])));
    acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, 1));
    acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, 2));
    if constexpr (L::kWarps > 1) {
        if ((tid & 31) == 0) scratch[tid / 32] = acc;
        sync_threads<L::kThreads>();
        acc = R::init();
#pragma unroll
        for (int w = 0; w < L::kWarps; ++w)
            if (L::warp_m(w) == 0) acc = R::combine(acc, scratch[w]);
        sync_threads<L::kThreads>();
    }
    reduce_store<OP, CLEAR>(out[0], acc);
}

}  // namespace tp
