// FlashAttention forward for sm_90a, warp-specialized: one producer thread streams Q once and
// K, V through two TMA + mbarrier rings; CONSUMERS warpgroups each own 64 query rows and run
// S = Q K^T as SS wgmma (both operands K-major), the online softmax on the accumulator in
// registers, and O += P V as RS wgmma with P converted to f16/bf16 A fragments in registers
// (V is [seq][dim], an MN-major B operand). With OVERLAP the QK^T of tile j is issued together
// with the PV of tile j-1, so the softmax of tile j runs while the tensor cores do PV (the
// FlashAttention-3 intra-warpgroup schedule); with PINGPONG the warpgroups take turns issuing
// their GEMMs (named barriers), so one warpgroup's softmax overlaps the other's GEMMs.
// tests/gpu_kernels/wgmma_fa_test.cu instantiates it and checks it against a CPU reference.
//
// How the compiler should map samples/flash_attention.py onto this (--arch sm_90a):
//  - Shape to match: a T.Pipelined loop over kv tiles holding T.copy(K tile -> K_shared),
//    T.gemm(Q_shared, K_shared, acc_s, transpose_B=True), row reductions / T.Parallel on
//    acc_s and 1-D row fragments, T.copy(acc_s -> acc_s_cast), acc_o *= row vector,
//    T.copy(V tile -> V_shared), T.gemm(acc_s_cast, V_shared, acc_o). Q_shared copied once
//    before the loop; the epilogue (acc_o /= logsum; T.copy to global) is per-thread.
//  - block_M = 64 * CONSUMERS (the user's threads is replaced by 128 * (CONSUMERS + 1)),
//    block_N in {64, 128, 192}, dim in {64, 128, 256 with a smaller block_N}; num_stages =
//    ring depth (at least 2, lowered until shared memory fits).
//  - Fragments: acc_s is AccLayout<64 * C, block_N, 4 * C, 1> and acc_o AccLayout<64 * C, dim,
//    4 * C, 1> over the consumer threads (what FullRow layout inference already assigns), so
//    the T.Parallel softmax body lowers unchanged onto s[] / o[]; the mask expression
//    (T.if_then_else on acc_s before the gemm) becomes the apply_mask step after the gemm
//    (the gemm overwrites with scale_d = 0 instead of accumulating onto the -inf fill).
//    acc_s_cast is exactly pack_p(): pair i of the accumulator is A-fragment register i.
//  - reduce_max / reduce_sum over dim=1 need only the quad shuffles (xor 1, 2): each row lives
//    in one warp. logsum may stay a per-thread partial until the epilogue (reduce_quad_sum).
//  - Tensor maps: the BHSD tensors as 3-D maps {dim, seq, batch*heads} (or the 4-D tensor with
//    box {64, rows, 1, 1}), box {64, rows}, 128B swizzle; out-of-range rows arrive as zeros,
//    so seq need not divide the tiles (the column mask handles kv rows past seq).
//  - Persistent grid (one block per SM, units dealt blockIdx.x + i * gridDim.x): pass each
//    tile's ring-use base and tile ordinal to produce()/consume(); Q is reloaded only after the
//    q_empty barrier says every warpgroup's last QK^T of the previous tile is done. Causal units
//    are the query-tile pairs (qt, nq-1-qt) of one head, which cost the same (wgmma_fa_test.cu).
//  - Overlap needs two score fragments live (S_j as float, P_{j-1} as packed halves): about
//    BN/2 + BN/4 + dim/2 registers plus ~40; keep block_N * 3/4 + dim/2 under ~200.
#pragma once

#include "tp_tma.cuh"
#include "tp_wgmma.cuh"

namespace tp {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TP_FA_SM90(...) __VA_ARGS__
#else
#define TP_FA_SM90(...) __trap();
#endif

// 3-D tensor-map box load (c0 innermost); see tma_load_2d for the contract.
__device__ __forceinline__ void tma_load_3d(void* dst, const TmaDesc* map, int c0, int c1, int c2, unsigned long long* bar) {
    TP_FA_SM90(asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(
            tma_smem_addr(dst)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(tma_smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
        : "memory");)
}

// Named barriers (ids 1..15; 0 is __syncthreads) between warpgroups: sync waits for `count`
// threads in total, arrive counts this warp in without waiting.
__device__ __forceinline__ void named_bar_sync(int id, int count) {
    TP_FA_SM90(asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");)
}
__device__ __forceinline__ void named_bar_arrive(int id, int count) {
    TP_FA_SM90(asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");)
}

// Keeps packed A-fragment registers alive and unmoved until here: an RS wgmma reads them
// asynchronously, so their registers must not be reused before the wait that follows it.
template <int COUNT>
__device__ __forceinline__ void wgmma_fence_regs(unsigned* r) {
#pragma unroll
    for (int i = 0; i < COUNT; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

// ex2.approx.ftz: named apart from tp_common.cuh's fast_exp2 (exp2f), which generated kernels include.
__device__ __forceinline__ float ex2_approx(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// A descriptor advanced by `bytes` (a multiple of 16): only the start-address field changes,
// and shared-memory addresses stay far below its 18-bit range, so a plain add cannot carry.
__device__ __forceinline__ unsigned long long desc_add(unsigned long long d, unsigned bytes) { return d + (bytes >> 4); }

template <class T, int D, int BN, int CONSUMERS, int STAGES, bool CAUSAL, bool OVERLAP, bool PINGPONG>
struct WsAttention {
    static_assert(sizeof(T) == 2, "tp::WsAttention: f16 or bf16");
    static_assert(D % 64 == 0 && D <= 256, "tp::WsAttention: dim must be 64, 128, 192 or 256");
    static_assert(BN == 64 || BN == 128 || BN == 192 || BN == 256, "tp::WsAttention: block_N must be 64..256 by 64");
    static_assert(!PINGPONG || (OVERLAP && CONSUMERS >= 2), "tp::WsAttention: ping-pong needs overlap and 2+ warpgroups");
    static constexpr int BM = 64 * CONSUMERS;
    static constexpr int kThreads = 128 * (CONSUMERS + 1);
    static constexpr int kChunks = D / 64;      // 128-byte swizzle rows per Q/K/V row
    static constexpr int kQElems = BM * D;      // Q: kChunks tiles [BM][64]
    static constexpr int kKvElems = BN * D;     // one K or V stage: kChunks tiles [BN][64]
    static constexpr int kSAcc = BN / 2;        // score floats per consumer thread
    static constexpr int kOAcc = D / 2;         // output floats per consumer thread
    static constexpr int kP = BN / 4;           // packed P registers per thread
    // Shared memory: Q, K stages, V stages (each 1024-byte aligned), then the barriers:
    // q_full, q_empty, k_full[S], k_empty[S], v_full[S], v_empty[S].
    static constexpr int kKOffset = kQElems * 2;
    static constexpr int kVOffset = kKOffset + STAGES * kKvElems * 2;
    static constexpr int kBarOffset = kVOffset + STAGES * kKvElems * 2;
    static constexpr int kSmemBytes = kBarOffset + (2 + 4 * STAGES) * 8;
    static constexpr unsigned kQBytes = kQElems * 2, kKvBytes = kKvElems * 2;
    // Register split for setmaxnreg (65536 per SM over kThreads): the producer needs few.
    static constexpr int kProducerRegs = CONSUMERS == 1 ? 56 : (CONSUMERS == 2 ? 24 : 32);
    static constexpr int kConsumerRegs = CONSUMERS == 1 ? 256 : (CONSUMERS == 2 ? 240 : 160);

    struct Smem {
        T* q;
        T* k;
        T* v;
        unsigned long long* bars;
        __device__ unsigned long long* q_full() const { return bars; }
        __device__ unsigned long long* q_empty() const { return bars + 1; }
        __device__ unsigned long long* k_full(int s) const { return bars + 2 + s; }
        __device__ unsigned long long* k_empty(int s) const { return bars + 2 + STAGES + s; }
        __device__ unsigned long long* v_full(int s) const { return bars + 2 + 2 * STAGES + s; }
        __device__ unsigned long long* v_empty(int s) const { return bars + 2 + 3 * STAGES + s; }
    };

    // `base` must be 1024-byte aligned (the 128B swizzle atom).
    static __device__ __forceinline__ Smem carve(unsigned char* base) {
        Smem s;
        s.q = reinterpret_cast<T*>(base);
        s.k = reinterpret_cast<T*>(base + kKOffset);
        s.v = reinterpret_cast<T*>(base + kVOffset);
        s.bars = reinterpret_cast<unsigned long long*>(base + kBarOffset);
        return s;
    }
    // Thread 0 initialises; every thread then waits at the block barrier.
    static __device__ __forceinline__ void init(const Smem& sm, int tid) {
        if (tid == 0) {
            mbar_init(sm.q_full(), 1);
            mbar_init(sm.q_empty(), CONSUMERS);
#pragma unroll
            for (int s = 0; s < STAGES; ++s) {
                mbar_init(sm.k_full(s), 1);
                mbar_init(sm.v_full(s), 1);
                mbar_init(sm.k_empty(s), CONSUMERS);
                mbar_init(sm.v_empty(s), CONSUMERS);
            }
            mbar_fence_init();
        }
        __syncthreads();
    }

    // kv tiles a query tile at q0 visits: all of them, or (causal) up to its last row.
    static __device__ __forceinline__ int kv_tiles(int q0, int seq) {
        int n = (seq + BN - 1) / BN;
        if (CAUSAL) n = min(n, (min(seq, q0 + BM) + BN - 1) / BN);
        return n;
    }

    // The producer (one thread): Q once, then K_j and V_j for every kv tile, each into the next
    // ring slot once the consumers have released it. Tensor maps are 3-D {dim, seq, heads},
    // boxes {64, BM, 1} (Q) and {64, BN, 1} (K, V). A persistent block calls it per tile with
    // `it0` = ring uses so far and `tile_i` = tiles so far (Q waits for the last tile's QK^T).
    static __device__ __forceinline__ void produce(const Smem& sm, const TmaDesc* mq, const TmaDesc* mk, const TmaDesc* mv,
                                                   int q0, int bh, int n_kv, int it0 = 0, int tile_i = 0) {
        if (tile_i > 0) mbar_wait(sm.q_empty(), static_cast<unsigned>(tile_i - 1) & 1u);
        mbar_arrive_expect_tx(sm.q_full(), kQBytes);
#pragma unroll
        for (int c = 0; c < kChunks; ++c) tma_load_3d(sm.q + c * BM * 64, mq, 64 * c, q0, bh, sm.q_full());
        for (int j = 0; j < n_kv; ++j) {
            RingPos<STAGES> p(it0 + j);
            mbar_wait(sm.k_empty(p.stage), p.phase ^ 1u);
            mbar_arrive_expect_tx(sm.k_full(p.stage), kKvBytes);
            T* k = sm.k + p.stage * kKvElems;
#pragma unroll
            for (int c = 0; c < kChunks; ++c) tma_load_3d(k + c * BN * 64, mk, 64 * c, j * BN, bh, sm.k_full(p.stage));
            mbar_wait(sm.v_empty(p.stage), p.phase ^ 1u);
            mbar_arrive_expect_tx(sm.v_full(p.stage), kKvBytes);
            T* v = sm.v + p.stage * kKvElems;
#pragma unroll
            for (int c = 0; c < kChunks; ++c) tma_load_3d(v + c * BN * 64, mv, 64 * c, j * BN, bh, sm.v_full(p.stage));
        }
    }

    // --- consumer pieces (warpgroup wg, thread t = tid % 128 of it) ----------------------------
    // S = Q_wg K_j^T: D/16 SS wgmmas, the first overwriting (scale_d = 0).
    static __device__ __forceinline__ void issue_qk(const Smem& sm, int wg, int stage, float* s) {
        const unsigned long long dq = wgmma_desc(sm.q + wg * 64 * 64, 16, 1024);
        const unsigned long long dk = wgmma_desc(sm.k + stage * kKvElems, 16, 1024);
#pragma unroll
        for (int kk = 0; kk < D / 16; ++kk) {
            // chunk kk / 4 of the row, k16 step kk % 4 inside its 128-byte swizzle row
            const unsigned qoff = ((kk / 4) * BM * 64 + (kk % 4) * 16) * 2;
            const unsigned koff = ((kk / 4) * BN * 64 + (kk % 4) * 16) * 2;
            wgmma_ss<BN, T, false, true>(s, desc_add(dq, qoff), desc_add(dk, koff), kk > 0 ? 1 : 0);
        }
    }
    // O += P V_j: BN/16 RS wgmmas; V_j is kChunks panels [BN][64] (MN-major, LBO = panel stride).
    static __device__ __forceinline__ void issue_pv(const Smem& sm, int stage, const unsigned* p, float* o) {
        const unsigned long long dv = wgmma_desc(sm.v + stage * kKvElems, BN * 128, 1024);
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) wgmma_rs<D, T, false>(o, p + 4 * kk, desc_add(dv, kk * 16 * 128), 1);
    }

    // -inf where the key column is past seq or (causal) after the query row. Register i of the
    // accumulator is at row 16 w + g + 8 ((i / 2) % 2), column 8 (i / 4) + 2 q + (i % 2).
    static __device__ __forceinline__ void apply_mask(float* s, int t, int row0, int col0, int seq) {
        const int r = row0 + 16 * (t / 32) + (t % 32) / 4;
        const int c = col0 + 2 * (t % 4);
        const float ninf = -__int_as_float(0x7f800000);
#pragma unroll
        for (int i = 0; i < kSAcc; ++i) {
            const int col = c + 8 * (i / 4) + (i % 2), row = r + 8 * ((i / 2) % 2);
            if (col >= seq || (CAUSAL && col > row)) s[i] = ninf;
        }
    }
    // Whether tile j needs apply_mask for rows [row0, row0 + 64).
    static __device__ __forceinline__ bool needs_mask(int row0, int col0, int seq) {
        return col0 + BN > seq || (CAUSAL && col0 + BN - 1 > row0);
    }

    // Online softmax on the scores in place (they become unnormalised probabilities): new row
    // max m (2 rows per thread), corr = exp2((m_old - m_new) * scale), the thread's partial row
    // sums l rescaled and increased. Row max needs the quad (xor 1, 2); the sum stays partial.
    static __device__ __forceinline__ void softmax(float* s, float* m, float* l, float* corr, float scale_log2) {
        const float ninf = -__int_as_float(0x7f800000);
        float mx[2] = {m[0], m[1]};
#pragma unroll
        for (int i = 0; i < kSAcc; ++i) mx[(i / 2) % 2] = fmaxf(mx[(i / 2) % 2], s[i]);
        float ms[2];
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
            mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
            ms[r] = mx[r] == ninf ? 0.0f : mx[r] * scale_log2;  // a row masked so far stays at 0
            corr[r] = ex2_approx(m[r] * scale_log2 - ms[r]);      // m_old = -inf -> 0
            m[r] = mx[r];
        }
        float sum[2] = {0.0f, 0.0f};
#pragma unroll
        for (int i = 0; i < kSAcc; ++i) {
            s[i] = ex2_approx(fmaf(s[i], scale_log2, -ms[(i / 2) % 2]));
            sum[(i / 2) % 2] += s[i];
        }
#pragma unroll
        for (int r = 0; r < 2; ++r) l[r] = fmaf(l[r], corr[r], sum[r]);
    }
    static __device__ __forceinline__ void rescale_o(float* o, const float* corr) {
#pragma unroll
        for (int i = 0; i < kOAcc; ++i) o[i] *= corr[(i / 2) % 2];
    }
    // P as A fragments: accumulator pairs (2i, 2i+1) are exactly A register i of the k16 steps
    // (a0..a3 of step kk = column tiles 2kk, 2kk+1, rows g and g+8).
    static __device__ __forceinline__ void pack_p(const float* s, unsigned* p) {
#pragma unroll
        for (int i = 0; i < kP; ++i) p[i] = pack_float2<T>(s[2 * i], s[2 * i + 1]);
    }

    // Ping-pong turn taking: warpgroup w waits on barrier 1 + w, then passes the turn to w + 1.
    static __device__ __forceinline__ void turn_wait(int wg) {
        if constexpr (PINGPONG) named_bar_sync(1 + wg, 256);
    }
    static __device__ __forceinline__ void turn_pass(int wg, bool last) {
        if constexpr (PINGPONG) {
            // the last warpgroup's final pass would have no matching wait: skip it
            if (!(last && wg == CONSUMERS - 1)) named_bar_arrive(1 + (wg + 1) % CONSUMERS, 256);
        }
    }

    // One consumer warpgroup over all kv tiles; leaves O (unnormalised) in o and the partial row
    // sums in l. `row0` is the warpgroup's first query row, `t` its thread index (0..127);
    // it0 / tile_i as for produce().
    static __device__ __forceinline__ void consume(const Smem& sm, int wg, int t, int row0, int seq, int n_kv,
                                                   float scale_log2, float* o, float* l, int it0 = 0, int tile_i = 0) {
        float s[kSAcc];
        unsigned p[kP];
        float m[2] = {-__int_as_float(0x7f800000), -__int_as_float(0x7f800000)};
        float corr[2];
        l[0] = l[1] = 0.0f;
#pragma unroll
        for (int i = 0; i < kOAcc; ++i) o[i] = 0.0f;
        const bool leader = t == 0;
        mbar_wait(sm.q_full(), static_cast<unsigned>(tile_i) & 1u);
        if constexpr (PINGPONG) {
            if (wg == CONSUMERS - 1) named_bar_arrive(1, 256);  // warpgroup 0 goes first
        }
        if constexpr (OVERLAP) {
            RingPos<STAGES> p0(it0);
            mbar_wait(sm.k_full(p0.stage), p0.phase);  // data first, then the turn (as FlashAttention-3)
            turn_wait(wg);
            wgmma_fence();
            issue_qk(sm, wg, p0.stage, s);
            wgmma_commit();
            turn_pass(wg, false);
            wgmma_wait<0>();
            wgmma_fence_operands<kSAcc>(s);
            if (leader) mbar_arrive(sm.k_empty(p0.stage));
            if (leader && n_kv == 1) mbar_arrive(sm.q_empty());  // the last QK^T has read Q
            if (needs_mask(row0, 0, seq)) apply_mask(s, t, row0, 0, seq);
            softmax(s, m, l, corr, scale_log2);
            pack_p(s, p);
            for (int j = 1; j < n_kv; ++j) {
                RingPos<STAGES> pk(it0 + j), pv(it0 + j - 1);
                mbar_wait(sm.k_full(pk.stage), pk.phase);
                turn_wait(wg);
                wgmma_fence();
                issue_qk(sm, wg, pk.stage, s);
                wgmma_commit();
                // O *= corr of tile j-1 while the tensor cores run QK^T (PV_{j-2} finished at
                // the last wait), right before PV_{j-1} accumulates onto it (as FlashAttention-3)
                rescale_o(o, corr);
                mbar_wait(sm.v_full(pv.stage), pv.phase);
                wgmma_fence();  // O and P were written since the last fence (else ptxas injects one, C7519)
                issue_pv(sm, pv.stage, p, o);
                wgmma_commit();
                turn_pass(wg, false);
                wgmma_wait<1>();  // S_j is done; PV_{j-1} may still run under the softmax
                wgmma_fence_operands<kSAcc>(s);
                if (leader) mbar_arrive(sm.k_empty(pk.stage));
                if (leader && j == n_kv - 1) mbar_arrive(sm.q_empty());
                if (needs_mask(row0, j * BN, seq)) apply_mask(s, t, row0, j * BN, seq);
                softmax(s, m, l, corr, scale_log2);
                wgmma_wait<0>();
                wgmma_fence_operands<kOAcc>(o);
                wgmma_fence_regs<kP>(p);
                if (leader) mbar_arrive(sm.v_empty(pv.stage));
                pack_p(s, p);  // only now: PV_{j-1} read the previous P from these registers
            }
            RingPos<STAGES> pv(it0 + n_kv - 1);
            turn_wait(wg);
            rescale_o(o, corr);
            mbar_wait(sm.v_full(pv.stage), pv.phase);
            wgmma_fence();
            issue_pv(sm, pv.stage, p, o);
            wgmma_commit();
            turn_pass(wg, true);
            wgmma_wait<0>();
            wgmma_fence_operands<kOAcc>(o);
            wgmma_fence_regs<kP>(p);
            if (leader) mbar_arrive(sm.v_empty(pv.stage));
        } else {
            for (int j = 0; j < n_kv; ++j) {
                RingPos<STAGES> pos(it0 + j);
                mbar_wait(sm.k_full(pos.stage), pos.phase);
                wgmma_fence();
                issue_qk(sm, wg, pos.stage, s);
                wgmma_commit();
                wgmma_wait<0>();
                wgmma_fence_operands<kSAcc>(s);
                if (leader) mbar_arrive(sm.k_empty(pos.stage));
                if (leader && j == n_kv - 1) mbar_arrive(sm.q_empty());
                if (needs_mask(row0, j * BN, seq)) apply_mask(s, t, row0, j * BN, seq);
                softmax(s, m, l, corr, scale_log2);
                rescale_o(o, corr);
                pack_p(s, p);
                mbar_wait(sm.v_full(pos.stage), pos.phase);
                wgmma_fence();
                issue_pv(sm, pos.stage, p, o);
                wgmma_commit();
                wgmma_wait<0>();
                wgmma_fence_operands<kOAcc>(o);
                wgmma_fence_regs<kP>(p);
                if (leader) mbar_arrive(sm.v_empty(pos.stage));
            }
        }
    }

    // Epilogue: the full row sums (quad reduction of the partials), O / l (0 for an empty row).
    static __device__ __forceinline__ void normalize(float* o, float* l) {
#pragma unroll
        for (int r = 0; r < 2; ++r) {
            l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
            l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
            l[r] = l[r] > 0.0f ? 1.0f / l[r] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < kOAcc; ++i) o[i] *= l[(i / 2) % 2];
    }
};

}  // namespace tp

#undef TP_FA_SM90
