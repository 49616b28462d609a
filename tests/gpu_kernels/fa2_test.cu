// FlashAttention-2 style forward built from the templates as generated code for TileLang's
// example_mha_fwd would be: Q tile in shared memory, K/V double-buffered with cp.async,
// S = Q K^T (gemm_ss, transpose_B), online softmax with reduce_rows (max, sum) on the
// accumulator fragment, P @ V with P straight from registers (gemm_rs), causal masking,
// boundary rows. Checked against a CPU reference, then timed at B1 H32 S4096 D128.
#include "common.cuh"
#include "tp_copy.cuh"
#include "tp_gemm.cuh"
#include "tp_reduce.cuh"

using namespace harness;

template <int BM, int BN, int D, int WARPS>
struct FaConfig {
    using LS = tp::AccLayout<BM, BN, WARPS, 1>;  // scores / probabilities
    using LO = tp::AccLayout<BM, D, WARPS, 1>;   // output accumulator
    static constexpr int kThreads = WARPS * 32;
    static constexpr int kSmemBytes = (BM * D + 4 * BN * D) * 2;  // Q + 2 stages of K and V
};

template <int BM, int BN, int D, int WARPS, class T, bool CAUSAL>
__device__ __forceinline__ void fa2_body(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V,
                                         T* __restrict__ O, int S, float scale_log2) {
    using C = FaConfig<BM, BN, D, WARPS>;
    using LS = typename C::LS;
    using LO = typename C::LO;
    constexpr int TH = C::kThreads;
    extern __shared__ uint4 smem_raw[];
    T* Qs = reinterpret_cast<T*>(smem_raw);
    T* Ks = Qs + BM * D;
    T* Vs = Ks + 2 * BN * D;
    const int tid = threadIdx.x;
    const int q0 = blockIdx.x * BM;
    const long long base = (long long)blockIdx.y * S * D;
    const T* Qb = Q + base;
    const T* Kb = K + base;
    const T* Vb = V + base;
    const float neg_inf = -__int_as_float(0x7f800000);

    int n_kv = (S + BN - 1) / BN;
    if (CAUSAL) n_kv = min(n_kv, (q0 + BM + BN - 1) / BN);
    tp::copy_g2s<BM, D, TH>(Qs, Qb + (long long)q0 * D, D, S - q0, D, tid);
    tp::copy_g2s<BN, D, TH>(Ks, Kb, D, S, D, tid);
    tp::copy_g2s<BN, D, TH>(Vs, Vb, D, S, D, tid);
    tp::cp_async_commit();

    float o[LO::kSize];
    tp::fill(o, 0.0f);
    float m[LS::kRowSlots], l[LS::kRowSlots];
    for (int s = 0; s < LS::kRowSlots; ++s) m[s] = neg_inf, l[s] = 0.0f;
    const tp::GemmSS<BM, BN, D, WARPS, 1, false, true, T> qk;  // S = Q @ K^T

    for (int j = 0; j < n_kv; ++j) {
        const int st = j & 1;
        tp::cp_async_wait<0>();
        __syncthreads();  // tile j landed; stage st^1 (read in j-1) is free
        if (j + 1 < n_kv) {
            const int k1 = (j + 1) * BN;
            tp::copy_g2s<BN, D, TH>(Ks + (st ^ 1) * BN * D, Kb + (long long)k1 * D, D, S - k1, D, tid);
            tp::copy_g2s<BN, D, TH>(Vs + (st ^ 1) * BN * D, Vb + (long long)k1 * D, D, S - k1, D, tid);
        }
        tp::cp_async_commit();

        float s[LS::kSize];
        tp::fill(s, 0.0f);
        qk(Qs, Ks + st * BN * D, s);
        const bool edge = (j + 1) * BN > S || (CAUSAL && (j + 1) * BN > q0);
        if (edge) {
#pragma unroll
            for (int i = 0; i < LS::kSize; ++i) {
                const int col = j * BN + LS::col(tid, i), row = q0 + LS::row(tid, i);
                if (col >= S || (CAUSAL && col > row)) s[i] = neg_inf;
            }
        }
        float m_new[LS::kRowSlots], corr[LS::kRowSlots], m_scaled[LS::kRowSlots];
#pragma unroll
        for (int r = 0; r < LS::kRowSlots; ++r) m_new[r] = m[r];
        tp::reduce_rows<LS, tp::ReduceOp::Max, false>(s, m_new, nullptr, tid);
#pragma unroll
        for (int r = 0; r < LS::kRowSlots; ++r) {
            m_scaled[r] = m_new[r] == neg_inf ? 0.0f : m_new[r] * scale_log2;  // fully masked row
            corr[r] = exp2f(m[r] * scale_log2 - m_scaled[r]);
            m[r] = m_new[r];
        }
#pragma unroll
        for (int i = 0; i < LS::kSize; ++i) s[i] = exp2f(s[i] * scale_log2 - m_scaled[LS::row_slot(i)]);
        float rs[LS::kRowSlots];
        tp::reduce_rows<LS, tp::ReduceOp::Sum, true>(s, rs, nullptr, tid);
#pragma unroll
        for (int r = 0; r < LS::kRowSlots; ++r) l[r] = l[r] * corr[r] + rs[r];
#pragma unroll
        for (int i = 0; i < LO::kSize; ++i) o[i] *= corr[LO::row_slot(i)];
        tp::gemm_rs<BM, D, BN, WARPS, 1, false, T>(s, Vs + st * BN * D, o);  // O += P @ V
    }
#pragma unroll
    for (int i = 0; i < LO::kSize; ++i) {
        const float li = l[LO::row_slot(i)];
        o[i] = li > 0.0f ? o[i] / li : 0.0f;
    }
    tp::frag_store_global<LO>(o, O + base + (long long)q0 * D, D, S - q0, D, tid);
}

template <int BM, int BN, int D, int WARPS, class T, bool CAUSAL>
__global__ void __launch_bounds__(WARPS * 32)
    fa2_kernel(const T* __restrict__ Q, const T* __restrict__ K, const T* __restrict__ V, T* __restrict__ O, int S,
               float scale_log2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    if constexpr (tp::MmaElem<T>::is_bf16) {  // bf16 mma needs sm_80; never launched there
        __trap();
    } else
#endif
    {
        fa2_body<BM, BN, D, WARPS, T, CAUSAL>(Q, K, V, O, S, scale_log2);
    }
}

template <int BM, int BN, int D, int WARPS, class T, bool CAUSAL>
struct Fa {
    using C = FaConfig<BM, BN, D, WARPS>;
    static constexpr auto kernel = fa2_kernel<BM, BN, D, WARPS, T, CAUSAL>;
    // false when this device lacks the shared memory (e.g. D=128 tiles on sm_75's 64 KB)
    static bool fits_device() {
        int dev = 0, optin = 0;
        CK(cudaGetDevice(&dev));
        CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        return C::kSmemBytes <= optin;
    }
    static void launch(const T* q, const T* k, const T* v, T* o, int BH, int S) {
        CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kSmemBytes));
        const float scale_log2 = 1.0f / std::sqrt(float(D)) * 1.4426950408889634f;
        kernel<<<dim3((S + BM - 1) / BM, BH), C::kThreads, C::kSmemBytes>>>(q, k, v, o, S, scale_log2);
    }
};

static bool all_ok = true;

template <int BM, int BN, int D, int WARPS, class T, bool CAUSAL>
void check(int BH, int S, int row_samples) {
    using F = Fa<BM, BN, D, WARPS, T, CAUSAL>;
    if (!F::fits_device()) {
        std::printf("[SKIP] fa2 BM=%d D=%d: %d bytes of shared memory\n", BM, D, F::C::kSmemBytes);
        return;
    }
    size_t n = size_t(BH) * S * D;
    auto hq = random_vec<T>(n, 31), hk = random_vec<T>(n, 32), hv = random_vec<T>(n, 33);
    DeviceBuf<T> q(hq), k(hk), v(hv), o(n);
    CK(cudaMemset(o.ptr, 0xff, n * sizeof(T)));
    F::launch(q.ptr, k.ptr, v.ptr, o.ptr, BH, S);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto out = o.download();
    std::vector<float> fq(n), fk(n), fv(n);
    for (size_t i = 0; i < n; ++i) fq[i] = to_f(hq[i]), fk[i] = to_f(hk[i]), fv[i] = to_f(hv[i]);
    std::vector<int> rows;
    for (int i = 0; i < S; ++i)
        if (row_samples <= 0 || i % std::max(1, S / row_samples) == 0 || i == S - 1) rows.push_back(i);
    auto ref = attention_reference(fq, fk, fv, BH, S, D, CAUSAL, rows);
    std::vector<size_t> pick;
    for (int h = 0; h < BH; ++h)
        for (int i : rows)
            for (int t = 0; t < D; ++t) pick.push_back((size_t(h) * S + i) * D + t);
    ErrStat e = compare(out, ref, pick);
    bool ok = e.rel_fro < 1e-2;
    all_ok = all_ok && ok;
    std::printf("%s fa2 %s BM=%d BN=%d D=%d warps=%d %s BH=%d S=%d rel_fro=%.2e max_abs=%.2e\n", ok ? "[ OK ]" : "[FAIL]",
                dtype_name<T>(), BM, BN, D, WARPS, CAUSAL ? "causal" : "full", BH, S, e.rel_fro, e.max_abs);
}

template <int BM, int BN, int D, int WARPS, class T, bool CAUSAL>
void perf(int B, int H, int S, Timer& timer) {
    using F = Fa<BM, BN, D, WARPS, T, CAUSAL>;
    if (!F::fits_device()) return;
    size_t n = size_t(B) * H * S * D;
    auto h = random_vec<T>(n, 41);
    DeviceBuf<T> q(h), k(h), v(h), o(n);
    Timing t = timer.time([&] { F::launch(q.ptr, k.ptr, v.ptr, o.ptr, B * H, S); }, 10, 2);
    double flops = 4.0 * B * H * double(S) * S * D * (CAUSAL ? 0.5 : 1.0);
    std::printf("%-44s %9.3f %9.1f\n",
                (std::string("fa2 ") + dtype_name<T>() + " BM" + std::to_string(BM) + " BN" + std::to_string(BN) +
                 " D" + std::to_string(D) + (CAUSAL ? " causal" : " full"))
                    .c_str(),
                t.median_ms, flops / t.median_ms / 1e9);
}

int main() {
    require_device("fa2_test");
    const int sm = device_sm();
    check<64, 64, 64, 4, __half, false>(3, 256, 0);
    check<64, 64, 64, 4, __half, true>(3, 300, 0);
    check<128, 64, 128, 4, __half, false>(2, 520, 0);
    check<128, 64, 128, 4, __half, true>(2, 520, 0);
    if (sm >= 80) check<128, 64, 128, 4, __nv_bfloat16, false>(2, 384, 0);
    check<128, 64, 128, 4, __half, false>(1, 4096, 64);  // the perf shape, sampled rows
    check<64, 64, 128, 4, __half, false>(2, 1000, 0);
    Timer timer;
    std::printf("\n== FlashAttention-2 style forward, B1 H32 S4096 (median of 10, L2 flushed) ==\n");
    std::printf("%-44s %9s %9s\n", "config", "ms", "TFLOP/s");
    perf<128, 64, 128, 4, __half, false>(1, 32, 4096, timer);
    perf<128, 64, 128, 4, __half, true>(1, 32, 4096, timer);
    perf<64, 64, 128, 4, __half, false>(1, 32, 4096, timer);
    perf<64, 64, 64, 4, __half, false>(1, 32, 4096, timer);
    std::printf("(reference on the H200: SDPA FlashAttention-2 backend 346 TFLOP/s full, 264 causal at D128)\n");
    std::printf("fa2_test: %s\n", all_ok ? "all checks passed" : "CHECK FAILURES");
    return all_ok ? 0 : 1;
}
