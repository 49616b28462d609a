// Schedules beyond tp::WsGemm for the sm_90a warp-specialized GEMM, as template options so one
// harness can time them side by side (tests/gpu_kernels/wgmma_gemm_variants.cu) before the
// compiler's warp_specialize pass adopts one:
//   PINGPONG   each consumer warpgroup owns a whole BM x BN tile and the warpgroups take
//              alternate tiles of the block, so one's epilogue runs under the other's mainloop
//              (the ring hands out tiles in order: a tile's loads start only as the previous
//              tile's slots free up, so the two mainloops overlap by at most STAGES k-steps);
//              otherwise (cooperative) the warpgroups split the tile's rows, as WsGemm does.
//   CLUSTER    1 or 2 blocks along M that compute vertically adjacent tiles with the same B
//              columns: each block loads BN / 64 / CLUSTER of B's panels and multicasts them
//              to both, halving B's L2 -> SM traffic. A slot is free only when the consumers of
//              every block in the cluster have released it.
//   EPI_SMEM   the epilogue writes the converted tile into a per-warpgroup 128B-swizzled
//              staging buffer and one thread stores it with TMA (bulk, asynchronous), so the
//              warpgroup starts its next mainloop while the store drains.
// Accumulators: MI = WG_M / 64 m64 blocks of BN / 2 floats; block mi, register i of thread t of
// the warpgroup is row mi * 64 + 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2), column
// 8 * (i / 4) + 2 * (t % 4) + (i % 2). With MI == 1 that is tp::AccLayout<64, BN, 4, 1>.
#pragma once

#include "tp_cluster.cuh"
#include "tp_copy.cuh"
#include "tp_tma.cuh"
#include "tp_wgmma.cuh"
#include "tp_ws_gemm.cuh"

namespace tp {

template <class T, int BM, int BN, int STAGES, int CONSUMERS, bool PINGPONG, int CLUSTER, bool EPI_SMEM>
struct WsGemmExt {
    static_assert(sizeof(T) == 2, "tp::WsGemmExt: 16-bit operands only");
    static_assert(BN % 64 == 0 && BN <= 256, "tp::WsGemmExt: BN must be 64, 128, 192 or 256");
    static_assert(CONSUMERS >= 1 && CONSUMERS <= 2, "tp::WsGemmExt: one or two consumer warpgroups");
    static_assert(CLUSTER == 1 || CLUSTER == 2, "tp::WsGemmExt: clusters of 1 or 2 blocks");
    static_assert((BN / 64) % CLUSTER == 0, "tp::WsGemmExt: B's panels must split evenly over the cluster");
    static_assert(STAGES >= 2, "tp::WsGemmExt: at least two stages");

    static constexpr int BK = 64;
    static constexpr int kBM = BM, kBN = BN, kStages = STAGES, kConsumers = CONSUMERS, kCluster = CLUSTER;
    static constexpr bool kPingPong = PINGPONG, kEpiSmem = EPI_SMEM;
    static constexpr int kWgM = PINGPONG ? BM : BM / CONSUMERS;  // rows one consumer warpgroup owns
    static_assert(kWgM % 64 == 0 && kWgM <= 128, "tp::WsGemmExt: a warpgroup owns 64 or 128 rows");
    static constexpr int MI = kWgM / 64;
    static constexpr int kAccSize = MI * BN / 2;  // floats per consumer thread
    static constexpr int kThreads = 128 * (CONSUMERS + 1);
    static constexpr int kConsumerThreads = 128 * CONSUMERS;
    static constexpr int kAElems = BM * BK, kBElems = BK * BN;
    static constexpr unsigned kStageBytes = (kAElems + kBElems) * 2;  // all of it lands in every block
    // Each slot is read by one warpgroup (ping-pong) or all of them, in every block of the cluster.
    static constexpr int kReleases = (PINGPONG ? 1 : CONSUMERS) * CLUSTER;
    static constexpr int kCElems = EPI_SMEM ? CONSUMERS * kWgM * BN : 0;  // staging, per warpgroup
    // Shared memory (1024-byte aligned base): A stages, B stages, C staging, 2 * STAGES mbarriers.
    static constexpr int kBOffset = STAGES * kAElems * 2;
    static constexpr int kCOffset = kBOffset + STAGES * kBElems * 2;
    static constexpr int kBarOffset = kCOffset + kCElems * 2;
    static constexpr int kSmemBytes = kBarOffset + 2 * STAGES * 8;
    static_assert(kSmemBytes <= 227 * 1024 - 1024, "tp::WsGemmExt: the stages do not fit in shared memory");

    // Tensor-map boxes (inner extent first), 128B swizzle: A [M][K] {64, BM}; B [K][N] {64, 64}
    // (one per 64-column panel); C [M][N] {64, kWgM} (EPI_SMEM only).

    // All threads. Thread 0 initialises the barriers; with a cluster every block's barriers must
    // exist before any peer multicasts into or arrives on them.
    static __device__ __forceinline__ void init(unsigned long long* bars, int tid) {
        if (tid == 0) {
#pragma unroll
            for (int s = 0; s < STAGES; ++s) {
                mbar_init(&bars[s], 1);                  // full: this block's expect_tx arrival
                mbar_init(&bars[STAGES + s], kReleases);  // empty
            }
            mbar_fence_init();
        }
        if constexpr (CLUSTER > 1) cluster_sync();
        else __syncthreads();
    }

    // mbar_wait, or with TP_WS_WATCHDOG defined (test harnesses) one that traps after about
    // 2^32 cycles (~2 s; a healthy wait lasts microseconds), so a schedule bug ends the process
    // with an error instead of hanging the GPU until a timeout.
    static __device__ __forceinline__ void wait(unsigned long long* bar, unsigned parity) {
#if defined(TP_WS_WATCHDOG)
        unsigned n = 0;
        long long start = 0;
        while (!mbar_try_wait(bar, parity)) {  // the clock is read only once a wait is long
            if (++n == 1024u) start = clock64();
            else if ((n & 1023u) == 0 && clock64() - start > (1ll << 32)) __trap();
        }
#else
        mbar_wait(bar, parity);
#endif
    }

    // Producer thread, ring use `it`: A's box at (a_col, a_row) into this block; B's panels at
    // (b_col + 64 j, b_row), the ones with j % CLUSTER == rank multicast to the whole cluster.
    // One expect_tx covers the whole stage, whichever block's copy delivers it.
    static __device__ __forceinline__ void produce(const TmaDesc* ta, const TmaDesc* tb, T* smem, unsigned long long* bars, int it,
                                                   int a_col, int a_row, int b_col, int b_row, unsigned rank) {
        RingPos<STAGES> p(it);
        wait(&bars[STAGES + p.stage], p.phase ^ 1u);
        unsigned long long* full = &bars[p.stage];
        mbar_arrive_expect_tx(full, kStageBytes);
        T* a = smem + p.stage * kAElems;
        T* b = smem + kBOffset / 2 + p.stage * kBElems;
        tma_load_2d(a, ta, a_col, a_row, full);
#pragma unroll
        for (int j = 0; j < BN / 64; ++j) {
            if constexpr (CLUSTER == 1) {
                tma_load_2d(b + j * BK * 64, tb, b_col + 64 * j, b_row, full);
            } else if (j % CLUSTER == static_cast<int>(rank)) {
                tma_load_2d_multicast(b + j * BK * 64, tb, b_col + 64 * j, b_row, full,
                                      static_cast<unsigned short>((1u << CLUSTER) - 1u));
            }
        }
    }

    // Frees slot `stage` in every block of the cluster (threads 0 .. CLUSTER-1 of the warpgroup
    // each signal one block).
    static __device__ __forceinline__ void release(unsigned long long* bars, int stage, int t) {
        if constexpr (CLUSTER == 1) {
            if (t == 0) mbar_arrive(&bars[STAGES + stage]);
        } else {
            if (t < CLUSTER) mbar_arrive_cluster(&bars[STAGES + stage], static_cast<unsigned>(t));
        }
    }

    // Consumer warpgroup `wg`, thread `t` of it, ring use `it`: acc += A_rows * B for its kWgM
    // rows, then, once the previous use's group has finished, releases that use's slot.
    static __device__ __forceinline__ void consume(const T* smem, unsigned long long* bars, int it, bool first, float* acc,
                                                   int wg, int t) {
        RingPos<STAGES> p(it);
        wait(&bars[p.stage], p.phase);
        const T* a = smem + p.stage * kAElems + (PINGPONG ? 0 : wg * kWgM * BK);
        const T* b = smem + kBOffset / 2 + p.stage * kBElems;
        wgmma_fence_operands<kAccSize>(acc);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BK / 16; ++kk) {
            unsigned long long db = wgmma_desc(b + kk * 16 * 64, BK * 128, 1024);
#pragma unroll
            for (int mi = 0; mi < MI; ++mi) {
                unsigned long long da = wgmma_desc(a + mi * 64 * BK + kk * 16, 16, 1024);
                wgmma_ss<BN, T, false, false>(acc + mi * (BN / 2), da, db, 1);
            }
        }
        wgmma_commit();
        wgmma_wait<1>();
        wgmma_fence_operands<kAccSize>(acc);
        if (!first) release(bars, RingPos<STAGES>(it - 1).stage, t);
    }
    static __device__ __forceinline__ void finish(unsigned long long* bars, int last_it, float* acc, int t) {
        wgmma_wait<0>();
        wgmma_fence_operands<kAccSize>(acc);
        release(bars, RingPos<STAGES>(last_it).stage, t);
    }

    // Ping-pong turns. Local tile j of the block belongs to warpgroup j % 2, and its mainloop
    // starts only after tile j - 1's mainloop has finished (mma_turn_wait / mma_turn_pass on
    // named barriers 3 and 4). Two reasons: the warpgroups then take the tensor cores in turns,
    // one's epilogue under the other's mainloop, which is the point of ping-pong; and a
    // consumer never waits on a ring slot more than one phase ahead of the barrier. Without
    // the order, warpgroup 1 polls the slot of its first use (ring use nk, phase nk / STAGES)
    // while warpgroup 0 is still cycling the ring, and mbarrier parity cannot tell phase p
    // from p - 2, so it reads a slot that holds warpgroup 0's data (a wrong result, or a
    // fault once the phases drift further).
    static __device__ __forceinline__ void mma_turn_wait(int j, int wg) {
        if constexpr (PINGPONG && CONSUMERS == 2) {
            if (j > 0) named_barrier_sync(3 + wg, 256);
        }
    }
    // After tile j's mainloop (finish() done): lets the owner of tile j + 1 start, if it exists.
    static __device__ __forceinline__ void mma_turn_pass(bool has_next, int wg) {
        if constexpr (PINGPONG && CONSUMERS == 2) {
            if (has_next) named_barrier_arrive(3 + (1 - wg), 256);
        }
    }

    static __device__ __forceinline__ int acc_row(int t, int mi, int i) { return mi * 64 + 16 * (t / 32) + (t % 32) / 4 + 8 * ((i / 2) % 2); }
    static __device__ __forceinline__ int acc_col(int t, int i) { return 8 * (i / 4) + 2 * (t % 4) + (i % 2); }

    // Epilogue straight from registers: op(value, tile_row, tile_col) -> float, then pairs of
    // T to global memory at g (the warpgroup's first row), bounded by rows/cols_valid.
    template <class Op>
    static __device__ __forceinline__ void store_direct(const float* acc, T* g, int ld, int rows_valid, int cols_valid, int t,
                                                        Op op) {
        // Row by row (MI * 2 rows per thread), so only one row pointer is live at a time.
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int r = acc_row(t, mi, 2 * h);
                if (r >= rows_valid) continue;
                T* row = g + r * ld;
#pragma unroll
                for (int nb = 0; nb < BN / 8; ++nb) {
                    const int i = mi * (BN / 2) + nb * 4 + 2 * h, c = acc_col(t, nb * 4);
                    T v0 = from_float<T>(op(acc[i], r, c));
                    T v1 = from_float<T>(op(acc[i + 1], r, c + 1));
                    if (c + 1 < cols_valid) {
                        *reinterpret_cast<unsigned*>(row + c) = pack2(v0, v1);
                    } else if (c < cols_valid) {
                        row[c] = v0;
                    }
                }
            }
        }
    }

    // Epilogue through shared memory: the warpgroup writes its converted kWgM x BN tile into its
    // staging buffer (64-column panels, 128B swizzle: each warp's 4-byte writes hit 32 banks),
    // then thread 0 stores the panels with TMA at (col0 + 64 p, row0); the tensor map clips the
    // edges. Barrier `1 + wg` keeps the warpgroup's threads together without stopping the rest.
    template <class Op>
    static __device__ __forceinline__ void store_tma(const float* acc, T* smem, const TmaDesc* tc, int col0, int row0, int wg,
                                                     int t, Op op) {
        T* cs = smem + kCOffset / 2 + wg * kWgM * BN;
        if (t == 0) tma_store_wait_read();  // the previous tile's store has read the buffer
        named_barrier_sync(1 + wg, 128);
        stage_acc_sw128<BN, MI, kWgM>(acc, cs, t, op);
        fence_proxy_async();  // generic writes, read next by the TMA unit
        named_barrier_sync(1 + wg, 128);
        if (t == 0) {
#pragma unroll
            for (int p = 0; p < BN / 64; ++p) tma_store_2d(tc, cs + p * kWgM * 64, col0 + 64 * p, row0);
            tma_store_commit();
        }
    }
    // Before the block exits: its bulk stores must have read their shared-memory sources.
    static __device__ __forceinline__ void drain_stores(int t) {
        if (EPI_SMEM && t == 0) tma_store_wait_all();
    }
};

}  // namespace tp

// Folding a winner into core/transform/warp_specialize.cpp (it emits tp::WsGemm today):
// - The emitted kernel keeps its shape (init; producer branch with setmaxnreg_dec<40>; consumer
//   branch with setmaxnreg_inc<232>); ext_gemm in tests/gpu_kernels/wgmma_gemm_variants.cu is
//   the reference for what to emit. produce() takes the whole shared-memory base (A stages at
//   0, B at kBOffset, C staging at kCOffset, barriers at kBarOffset) and the cluster rank.
// - PINGPONG with BM == 64 (a 64 x BN tile per warpgroup) keeps the accumulator exactly
//   AccLayout<64, BN, 4, 1> over t = threadIdx.x % 128, so layout inference needs a warpgroup-
//   local thread index but no new layout; with BM == 128 (MI == 2) row(t, i) is block mi =
//   i / (BN / 2) stacked at +64 rows, which AccLayout does not express (warps own 32
//   consecutive rows there): it needs a layout of its own or MI == 1.
// - Ping-pong: the consumer loop walks the same tile sequence as the producer and skips tiles
//   j % CONSUMERS != wg, advancing the ring counter by nk for each skipped tile; the epilogue
//   (T.Parallel + store) then runs per warpgroup with bx/by of its own tile.
// - CLUSTER == 2: launch with cluster dims (2, 1, 1) (cuLaunchKernelEx +
//   CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION), grid = 2 * min(cluster tiles, max active clusters
//   from cuOccupancyMaxActiveClusters); tiles are dealt per cluster (blockIdx.x / 2), the
//   block's rows are (by * 2 + rank) * BM; every thread ends with cluster_sync().
// - EPI_SMEM: adopted (tp::WsGemm::store_tma, the cooperative form with kWgM = 64).
// - Measured on the H200 (4096^3 fp16, session 3): cooperative 128 x 256 with the TMA store is
//   the fastest (0.1926 ms here, 0.1815 through the compiler); ping-pong 64 x 256 0.2197 and
//   128 x 128 0.2082. Session 4, after mbar_arrive_cluster lost its cluster-scope release (a
//   MEMBAR per k-step): cluster-of-2 variants 0.196-0.27 ms (were 0.30-0.55), still behind
//   cluster-of-1 (coop 128 x 256 tma-store 0.1961 against 0.1831), so clusters stay out.
// - The GEMM + bias + GELU epilogue (BiasGelu EPI modes in the harness, session 4): ping-pong
//   does not hide it (128 x 128: +25 us with erff, +17.5 with tp::gelu_erf) though the other
//   warpgroup's main loop runs meanwhile; the cooperative kernel pays it in full and is
//   issue-bound (about 0.8 us per SASS instruction per accumulator element at 4096^3), so the
//   instruction count decides: erff inline +19.5 us, tp::gelu_erf inline +13, either behind a
//   call +57 to +74 (the ABI moves cost more than the code fetch they save).
