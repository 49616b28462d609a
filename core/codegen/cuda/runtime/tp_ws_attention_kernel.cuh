// The whole-kernel body of the sm_90a FlashAttention forward that warp_specialize_attention
// (core/transform/warp_specialize_attention.h) puts in place of a recognised
// samples/flash_attention.py kernel, around tp::WsAttention (tp_ws_attention.cuh). The harness
// tests/gpu_kernels/wgmma_fa_test.cu's kernel calls this too, so the compiled kernel runs
// exactly the schedule that harness checks and times. One producer thread (the last warpgroup) streams Q,
// K, V by TMA; the consumer warpgroups run the wgmma softmax loop and store O.
//   PERSIST: one block per SM walks the work units blockIdx.x, + gridDim.x, ... (heads major);
//     a unit is one query tile or (causal) the pair of tiles qt and nq-1-qt of one head, which
//     cost the same. Otherwise the grid is (query tiles, batch*heads), causal longest first.
// Tensors are [batch*heads][seq][D] (BHSD), the maps 3-D {D, seq, batch*heads} with boxes
// {64, BM or BN, 1} and 128B swizzle; `smem` is the 1024-byte aligned A::kSmemBytes region.
#pragma once

#include "tp_copy.cuh"
#include "tp_layout.cuh"
#include "tp_ws_attention.cuh"

namespace tp {

template <class A, class T, bool CAUSAL, bool PERSIST>
struct WsAttentionKernel {
    static __device__ __forceinline__ void run(unsigned char* smem, const TmaDesc* mq, const TmaDesc* mk, const TmaDesc* mv,
                                               T* O, int seq, int heads, float scale_log2) {
        const auto sm = A::carve(smem);
        const int tid = threadIdx.x;
        A::init(sm, tid);
        const int nq = (seq + A::BM - 1) / A::BM;
        const int per_head = PERSIST && CAUSAL ? (nq + 1) / 2 : nq;  // units per head
        const int first = PERSIST ? blockIdx.x : 0, step = PERSIST ? gridDim.x : 1;
        const int nunits = PERSIST ? per_head * heads : 1;
        // Tiles of unit w (1 or 2) and the h-th one's first query row and head.
        auto unit_tiles = [&](int w) { return PERSIST && CAUSAL && 2 * (w % per_head) + 1 != nq ? 2 : 1; };
        auto tile = [&](int w, int h, int& q0, int& bh) {
            int qt;
            if (PERSIST) {
                bh = w / per_head;
                const int r = w % per_head;
                qt = CAUSAL ? (h == 0 ? nq - 1 - r : r) : r;
            } else {
                bh = blockIdx.y;
                qt = CAUSAL ? nq - 1 - static_cast<int>(blockIdx.x) : static_cast<int>(blockIdx.x);
            }
            q0 = qt * A::BM;
        };
        constexpr int kConsumerThreads = A::kThreads - 128;
        if (tid >= kConsumerThreads) {
            if constexpr (A::kThreads > 256) setmaxnreg_dec<A::kProducerRegs>();
            if (tid == kConsumerThreads) {
                tma_prefetch_desc(mq);
                tma_prefetch_desc(mk);
                tma_prefetch_desc(mv);
                int it = 0, i = 0;
                for (int w = first; w < nunits; w += step) {
                    for (int h = 0; h < unit_tiles(w); ++h, ++i) {
                        int q0, bh;
                        tile(w, h, q0, bh);
                        const int n_kv = A::kv_tiles(q0, seq);
                        A::produce(sm, mq, mk, mv, q0, bh, n_kv, it, i);
                        it += n_kv;
                    }
                }
            }
        } else {
            if constexpr (A::kThreads > 256) setmaxnreg_inc<A::kConsumerRegs>();
            const int wg = tid / 128, t = tid % 128;
            constexpr int D = A::kOAcc * 2;
            int it = 0, i = 0;
            for (int w = first; w < nunits; w += step) {
                for (int h = 0; h < unit_tiles(w); ++h, ++i) {
                    int q0, bh;
                    tile(w, h, q0, bh);
                    const int n_kv = A::kv_tiles(q0, seq);
                    const int row0 = q0 + wg * 64;
                    float o[A::kOAcc], l[2];
                    A::consume(sm, wg, t, row0, seq, n_kv, scale_log2, o, l, it, i);
                    A::normalize(o, l);
                    frag_store_global<AccLayout<64, D, 4, 1>>(o, O + (static_cast<size_t>(bh) * seq + row0) * D, D, seq - row0, D, t);
                    it += n_kv;
                }
            }
        }
    }
};

}  // namespace tp
