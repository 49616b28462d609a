// Reductions over striped fragments (fragments no T.gemm wrote: element e of the row-major
// ROWS x COLS tile lives in thread (e / VEC) % THREADS at local slot
// (e / (VEC*THREADS)) * VEC + e % VEC, tp::striped_elem in tp_layout.cuh), e.g. a softmax row
// loaded by T.copy. The result (one value per row for DIM=1, per column for DIM=0) is
// replicated in every thread, so any later loop may read any entry. Per-thread partials,
// warp shuffles, then one shared-memory exchange across warps: every thread of the block must
// call it (two tp::sync_threads). scratch: OUT * THREADS / 32 floats of shared memory. The
// partials are fp32 for float fragments whatever OutT is (fp16/bf16 results are rounded
// once, on the store) and int / unsigned for integer fragments (tp::ReduceAccum).
#pragma once

#include "tp_reduce.cuh"

namespace tp {

template <int ROWS, int COLS, int THREADS, int DIM, ReduceOp OP, bool CLEAR, int VEC = 1, class FragT, class OutT>
__device__ __forceinline__ void reduce_striped(const FragT* frag, OutT* out, float* scratch_f, int tid) {
    static_assert(THREADS % 32 == 0, "striped reductions shuffle whole warps");
    static_assert(VEC == 1 || (ROWS * COLS) % VEC == 0, "runs of VEC lie in whole rows");
    using V = typename ReduceAccum<FragT>::type;
    using R = Reducer<OP, V>;
    V* scratch = reinterpret_cast<V*>(scratch_f);
    constexpr int kElems = ROWS * COLS;
    // Whole rounds of VEC * THREADS elements, the last one guarded where it passes the end.
    constexpr int kLocal = (kElems + VEC * THREADS - 1) / (VEC * THREADS) * VEC;
    constexpr int kOut = DIM == 1 ? ROWS : COLS;
    constexpr int kWarps = THREADS / 32;
    const int lane = tid & 31, warp = tid >> 5;
    // One round whose rows each lie in TPR (a power of two up to 32) consecutive lanes of one
    // warp (per-token rows of 128 fp32 in runs of 8: 16 lanes a row): every slot of a thread
    // is in its own row, so it combines its slots, shuffles across its row's lanes only and
    // posts one value, instead of a masked pass and a whole-warp shuffle for every row.
    constexpr int kTpr = COLS / VEC;
    if constexpr (DIM == 1 && VEC > 1 && kElems == VEC * THREADS && COLS % VEC == 0 && kTpr <= 32 && (32 % kTpr) == 0) {
        V acc = R::init();
#pragma unroll
        for (int k = 0; k < VEC; ++k) acc = R::combine(acc, R::elem(reduce_in<V>(frag[k])));
#pragma unroll
        for (int m = kTpr / 2; m > 0; m >>= 1) acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, m));
        if (lane % kTpr == 0) scratch[tid / kTpr] = acc;
        sync_threads<THREADS>();
#pragma unroll
        for (int o = 0; o < kOut; ++o) reduce_store<OP, CLEAR>(out[o], scratch[o]);
        sync_threads<THREADS>();  // scratch may be reused right after
        return;
    }
    for (int o = 0; o < kOut; ++o) {
        V acc = R::init();
#pragma unroll
        for (int k = 0; k < kLocal; ++k) {
            const int e = striped_elem<THREADS, VEC>(tid, k);
            const int key = DIM == 1 ? e / COLS : e % COLS;
            // Only the last round can pass the end, and one output row takes every element: both
            // tests fold away where they cannot fail, so the round's maxima are plain max.f32s
            // rather than one branch each (NVVM cannot see that tid < THREADS makes them true).
            const bool in_range = (k / VEC + 1) * VEC * THREADS <= kElems || e < kElems;
            if (in_range && (kOut == 1 || key == o)) acc = R::combine(acc, R::elem(reduce_in<V>(frag[k])));
        }
#pragma unroll
        for (int m = 16; m > 0; m >>= 1) acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, m));
        if (lane == 0) scratch[o * kWarps + warp] = acc;
    }
    sync_threads<THREADS>();
    for (int o = 0; o < kOut; ++o) {
        V v = R::init();
#pragma unroll
        for (int w = 0; w < kWarps; ++w) v = R::combine(v, scratch[o * kWarps + w]);
        reduce_store<OP, CLEAR>(out[o], v);
    }
    sync_threads<THREADS>();  // scratch may be reused right after
}

// Row reductions (DIM=1) of a striped ROWS x COLS tile into the rows' own threads
// (FragLayout::StripedRow): round s of thread tid is the run of VEC elements starting at
// s*VEC*THREADS + tid*VEC, all in row (s*VEC*THREADS + tid*VEC) / COLS, which the COLS/VEC
// consecutive lanes of that row share. Each round combines its run and shuffles across those
// lanes only, and out[s] is the row's result in every one of them: no shared memory and no
// barrier, where the replicated form posts every row through shared memory to every thread.
template <int ROWS, int COLS, int THREADS, int VEC, ReduceOp OP, bool CLEAR, class FragT, class OutT>
__device__ __forceinline__ void reduce_striped_rows(const FragT* frag, OutT* out) {
    constexpr int kTpr = COLS / VEC;
    static_assert(COLS % VEC == 0 && (VEC * THREADS) % COLS == 0 && (ROWS * COLS) % (VEC * THREADS) == 0,
                  "runs lie in one row and rounds hold whole rows");
    static_assert(kTpr <= 32 && 32 % kTpr == 0, "a row's lanes lie in one warp");
    using V = typename ReduceAccum<FragT>::type;
    using R = Reducer<OP, V>;
#pragma unroll
    for (int s = 0; s < ROWS * COLS / (VEC * THREADS); ++s) {
        V acc = R::init();
#pragma unroll
        for (int k = 0; k < VEC; ++k) acc = R::combine(acc, R::elem(reduce_in<V>(frag[s * VEC + k])));
#pragma unroll
        for (int m = kTpr / 2; m > 0; m >>= 1) acc = R::combine(acc, __shfl_xor_sync(0xffffffffu, acc, m));
        reduce_store<OP, CLEAR>(out[s], acc);
    }
}

}  // namespace tp
