// The warp-specialized GEMM main loop for sm_90a (what T.Pipelined + T.copy + T.gemm lower to
// there): one producer thread streams A and B tiles with TMA into a ring of STAGES shared-memory
// slots guarded by mbarrier full/empty pairs; CONSUMERS warpgroups each own 64 rows of the
// BM x BN accumulator and run wgmma on the slots, keeping one wgmma group in flight. The
// accumulator is tp::AccLayout<BM, BN, BM / 16, 1> over the consumer threads (0 .. 128 *
// CONSUMERS), so the usual fragment templates (frag_store_global, T.Parallel loops) apply.
// Shared-memory layout and every formula: docs/tensorcore-templates.md ("Hopper").
#pragma once

#include "tp_cluster.cuh"
#include "tp_copy.cuh"
#include "tp_tma.cuh"
#include "tp_wgmma.cuh"

namespace tp {

// The staging half of a TMA-store epilogue, shared by WsGemm and WsGemmExt: thread t (0..127) of
// a warpgroup writes its wgmma accumulator (MI m64 blocks of BN / 2 floats; block mi, register i
// is row mi * 64 + 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), column 8 * (i / 4) +
// 2 * (t % 4) + i % 2) through op(value, row, col), converted to OutT, into `cs` as BN / 64
// panels of ROWS x 64 with the 128B swizzle, so a warp's 4-byte writes hit 32 banks.
template <int BN, int MI, int ROWS, class OutT, class Op>
__device__ __forceinline__ void stage_acc_sw128(const float* acc, OutT* cs, int t, Op op) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
        for (int i = 0; i < BN / 2; i += 2) {
            const int r = mi * 64 + 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), c = 8 * (i / 4) + 2 * (t % 4);
            const float* a = acc + mi * (BN / 2) + i;
            *reinterpret_cast<unsigned*>(cs + sw128_panel_offset(r, c, ROWS)) =
                pack2(from_float<OutT>(op(a[0], r, c)), from_float<OutT>(op(a[1], r, c + 1)));
        }
    }
}

struct IdentityEpilogue {
    __device__ __forceinline__ float operator()(float v, int, int) const { return v; }
};

template <class T, int BM, int BN, int BK, int STAGES, int CONSUMERS, bool TRANS_A, bool TRANS_B>
struct WsGemm {
    static_assert(sizeof(T) == 2, "tp::WsGemm: 16-bit operands only");
    static_assert(BK == 64, "tp::WsGemm: BK must be 64 (one 128-byte swizzle row of K)");
    static_assert(BM == 64 * CONSUMERS, "tp::WsGemm: each consumer warpgroup owns 64 rows");
    static_assert(BN % 64 == 0 && BN <= 256, "tp::WsGemm: BN must be 64, 128, 192 or 256");
    static_assert(STAGES >= 2, "tp::WsGemm: at least two stages");

    static constexpr int kThreads = 128 * (CONSUMERS + 1);   // + the producer warpgroup
    static constexpr int kConsumerThreads = 128 * CONSUMERS;
    static constexpr int kAElems = BM * BK, kBElems = BK * BN;  // one stage of each tile
    static constexpr unsigned kStageBytes = (kAElems + kBElems) * 2;
    // Shared memory: A stages, B stages (each 1024-byte aligned), then 2 * STAGES mbarriers.
    static constexpr int kBarOffset = STAGES * (kAElems + kBElems) * 2;
    static constexpr int kSmemBytes = kBarOffset + 2 * STAGES * 8;
    static constexpr int kAccSize = BN / 2;  // floats per consumer thread

    // Tensor-map boxes (inner extent first) the host must encode, 128B swizzle each:
    //   A [M][K] (not TRANS_A): box {64, BM};  A [K][M] (TRANS_A): box {64, BK}, BM / 64 per stage
    //   B [K][N] (not TRANS_B): box {64, BK}, BN / 64 per stage;  B [N][K] (TRANS_B): box {64, BN}

    // Thread 0 initialises the barriers; everyone then waits at the block barrier.
    static __device__ __forceinline__ void init(void* bar_mem, int tid) {
        auto* bars = static_cast<unsigned long long*>(bar_mem);
        if (tid == 0) {
#pragma unroll
            for (int s = 0; s < STAGES; ++s) {
                mbar_init(&bars[s], 1);                  // full: the producer's expect_tx arrival
                mbar_init(&bars[STAGES + s], CONSUMERS);  // empty: one arrival per consumer warpgroup
            }
            mbar_fence_init();
        }
        __syncthreads();
    }

    // Producer (one thread), ring use `it`: loads the A and B tiles whose first boxes start at
    // tensor-map coordinates (a_col, a_row) and (b_col, b_row) (innermost first, elements of the
    // row-major global tensors); an MN-major operand's further 64-wide panels follow at +64 in
    // its inner coordinate.
    static __device__ __forceinline__ void produce(const TmaDesc* ta, const TmaDesc* tb, T* As, T* Bs, void* bar_mem,
                                                   int it, int a_col, int a_row, int b_col, int b_row) {
        auto* bars = static_cast<unsigned long long*>(bar_mem);
        RingPos<STAGES> p(it);
        mbar_wait(&bars[STAGES + p.stage], p.phase ^ 1u);
        unsigned long long* full = &bars[p.stage];
        mbar_arrive_expect_tx(full, kStageBytes);
        T* a = As + p.stage * kAElems;
        T* b = Bs + p.stage * kBElems;
        if constexpr (!TRANS_A) {
            tma_load_2d(a, ta, a_col, a_row, full);
        } else {
#pragma unroll
            for (int j = 0; j < BM / 64; ++j) tma_load_2d(a + j * BK * 64, ta, a_col + 64 * j, a_row, full);
        }
        if constexpr (!TRANS_B) {
#pragma unroll
            for (int j = 0; j < BN / 64; ++j) tma_load_2d(b + j * BK * 64, tb, b_col + 64 * j, b_row, full);
        } else {
            tma_load_2d(b, tb, b_col, b_row, full);
        }
    }

    // Consumer warpgroup `wg` (0 .. CONSUMERS-1), ring use `it`: acc += A_slot * B_slot for its
    // 64 rows. `first` says no earlier use of this tile is pending (no slot to release).
    static __device__ __forceinline__ void consume(const T* As, const T* Bs, void* bar_mem, int it,
                                                   bool first, float* acc, int tid) {
        auto* bars = static_cast<unsigned long long*>(bar_mem);
        const int wg = tid / 128;
        RingPos<STAGES> p(it);
        mbar_wait(&bars[p.stage], p.phase);
        const T* a = As + p.stage * kAElems;
        const T* b = Bs + p.stage * kBElems;
        wgmma_fence_operands<kAccSize>(acc);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            unsigned long long da = !TRANS_A ? wgmma_desc(a + wg * 64 * 64 + kk * 16, 16, 1024)
                                             : wgmma_desc(a + wg * BK * 64 + kk * 16 * 64, BK * 128, 1024);
            unsigned long long db = !TRANS_B ? wgmma_desc(b + kk * 16 * 64, BK * 128, 1024)
                                             : wgmma_desc(b + kk * 16, 16, 1024);
            wgmma_ss<BN, T, TRANS_A, TRANS_B>(acc, da, db, 1);
        }
        wgmma_commit();
        wgmma_wait<1>();  // the previous use's wgmma group is done: its slot can be refilled
        wgmma_fence_operands<kAccSize>(acc);
        if (!first && tid % 128 == 0) mbar_arrive(&bars[STAGES + RingPos<STAGES>(it - 1).stage]);
    }
    // The epilogue through shared memory (when warp_specialize finds the tile's only store is
    // T.copy(C_local, C[...]) to a 16-bit tensor): consumer warpgroup wg converts its 64 x BN rows
    // into its staging area `cstage + wg * 64 * BN` (stage_acc_sw128), then one thread stores the panels with TMA at
    // (col0 + 64 p, row0 + 64 wg). The bulk store drains while the warpgroup starts the next
    // tile's main loop; the tensor map clips rows and columns past C's edges. Named barrier
    // 1 + wg keeps each warpgroup's threads together without stopping the other.
    template <class OutT>
    static __device__ __forceinline__ void store_tma(const float* acc, OutT* cstage, const TmaDesc* tc, int col0, int row0,
                                                     int tid) {
        const int wg = tid / 128, t = tid % 128;
        OutT* cs = cstage + wg * 64 * BN;
        if (t == 0) tma_store_wait_read();  // the previous tile's store has read the buffer
        named_barrier_sync(1 + wg, 128);
        stage_acc_sw128<BN, 1, 64>(acc, cs, t, IdentityEpilogue{});
        fence_proxy_async();  // generic writes, read next by the TMA unit
        named_barrier_sync(1 + wg, 128);
        if (t == 0) {
#pragma unroll
            for (int p = 0; p < BN / 64; ++p) tma_store_2d(tc, cs + p * 64 * 64, col0 + 64 * p, row0 + 64 * wg);
            tma_store_commit();
        }
    }
    // Before a consumer warpgroup exits: its bulk stores must have finished reading shared memory.
    static __device__ __forceinline__ void drain_stores(int tid) {
        if (tid % 128 == 0) tma_store_wait_all();
    }

    // After a tile's last consume(): waits for the last group and releases its slot.
    static __device__ __forceinline__ void finish(void* bar_mem, int last_it, float* acc, int tid) {
        auto* bars = static_cast<unsigned long long*>(bar_mem);
        wgmma_wait<0>();
        wgmma_fence_operands<kAccSize>(acc);
        if (tid % 128 == 0) mbar_arrive(&bars[STAGES + RingPos<STAGES>(last_it).stage]);
    }
};

}  // namespace tp
