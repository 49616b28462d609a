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
// panels of ROWS x 64 with the 128B swizzle, so a warp's 4-byte writes hit 32 banks. With
// PANEL >= 0 only that 64-column panel is written, as panel 0 of `cs` (a subtiled store);
// PANEL is a compile-time choice so the skipped registers cost nothing.
template <int BN, int MI, int ROWS, class OutT, class Op, int PANEL = -1>
__device__ __forceinline__ void stage_acc_sw128(const float* acc, OutT* cs, int t, Op op) {
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
        for (int i = 0; i < BN / 2; i += 2) {
            if (PANEL >= 0 && i / 32 != PANEL) continue;  // columns 8 * (i / 4) + 0..7 lie in panel i / 32
            const int r = mi * 64 + 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), c = 8 * (i / 4) + 2 * (t % 4);
            const int cp = PANEL >= 0 ? c - 64 * PANEL : c;
            const float* a = acc + mi * (BN / 2) + i;
            *reinterpret_cast<unsigned*>(cs + sw128_panel_offset(r, cp, ROWS)) =
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
    // T.copy(C_local, C[...]) to a 16-bit tensor), subtiled: consumer warpgroup wg converts its
    // 64 x BN rows one 64 x 64 panel at a time into one of kStoreBufs staging buffers of its own
    // (stage_acc_sw128, 8 KB each), and one thread stores each panel with TMA at (col0 + 64 p,
    // row0 + 64 wg) as soon as it is written. Panel p waits only for the store of panel p - 2
    // (the last one that read its buffer), so the bulk stores drain while the next panels are
    // converted and while the next tile's main loop runs. Two 8 KB buffers per warpgroup instead
    // of a whole 64 x BN tile leave room for a fourth ring slot at 128 x 256 (224 KB in all).
    // The tensor map clips rows and columns past C's edges. Named barrier 1 + wg keeps each
    // warpgroup's threads together without stopping the other.
    static constexpr int kStorePanels = BN / 64, kStoreBufs = kStorePanels < 2 ? kStorePanels : 2;
    static constexpr int kStageElems = CONSUMERS * kStoreBufs * 64 * 64;  // the staging area, in OutT
    template <class OutT>
    static __device__ __forceinline__ void store_tma(const float* acc, OutT* cstage, const TmaDesc* tc, int col0, int row0,
                                                     int tid) {
        const int wg = tid / 128, t = tid % 128;
        OutT* cs = cstage + wg * kStoreBufs * 64 * 64;
#pragma unroll
        for (int p = 0; p < kStorePanels; ++p) {
            OutT* buf = cs + (p % kStoreBufs) * 64 * 64;
            if (t == 0) tma_store_wait_read<kStoreBufs - 1>();  // the store that last read `buf` is done
            named_barrier_sync(1 + wg, 128);
            stage_panel<OutT>(acc, buf, t, p);
            fence_proxy_async();  // generic writes, read next by the TMA unit
            named_barrier_sync(1 + wg, 128);
            if (t == 0) {
                tma_store_2d(tc, buf, col0 + 64 * p, row0 + 64 * wg);
                tma_store_commit();
            }
        }
    }
    // stage_acc_sw128 for panel p (0 .. 3), with p turned into the template argument it needs.
    template <class OutT>
    static __device__ __forceinline__ void stage_panel(const float* acc, OutT* buf, int t, int p) {
        if (p == 0) stage_acc_sw128<BN, 1, 64, OutT, IdentityEpilogue, 0>(acc, buf, t, IdentityEpilogue{});
        if constexpr (kStorePanels > 1) if (p == 1) stage_acc_sw128<BN, 1, 64, OutT, IdentityEpilogue, 1>(acc, buf, t, IdentityEpilogue{});
        if constexpr (kStorePanels > 2) if (p == 2) stage_acc_sw128<BN, 1, 64, OutT, IdentityEpilogue, 2>(acc, buf, t, IdentityEpilogue{});
        if constexpr (kStorePanels > 3) if (p == 3) stage_acc_sw128<BN, 1, 64, OutT, IdentityEpilogue, 3>(acc, buf, t, IdentityEpilogue{});
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
