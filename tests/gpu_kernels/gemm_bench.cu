// GEMM harness: instantiates gemm_kernel.cuh (tp::gemm_ss + cp.async pipeline) for many
// configurations, checks them against a CPU reference (relative Frobenius error; boundary
// and unaligned shapes, all transposes, f16/bf16, warp policies, register staging, the
// bias+GELU epilogue), then times a sweep at 4096^3 against cuBLAS (cublasGemmEx) in the
// same process and prints a table. Exit code 1 when any check fails.
#include <cublas_v2.h>

#include "common.cuh"
#include "gemm_kernel.cuh"

using namespace harness;
using tp::WarpPolicy;

struct Entry {
    std::string name;
    bool ta, tb, bf16, epi, reg;
    int min_sm;
    std::function<bool()> prepare;
    std::function<void(const void*, const void*, void*, const void*, int, int, int)> launch;
    std::function<bool(int, int, int)> fits;  // static-shape kernels only run where tiles divide
};

template <int BM, int BN, int BK, int S, int TH, WarpPolicy P, bool TA, bool TB, class T, Epilogue E = Epilogue::None,
          bool REG = false, bool DIV = false, int PANEL = 8>
Entry make(const char* policy) {
    using G = GemmLauncher<BM, BN, BK, S, TH, P, TA, TB, T, E, PANEL, REG, DIV>;
    char name[160];
    std::snprintf(name, sizeof name, "%dx%dx%d s%d t%d %s warps%dx%d %s%s %s%s%s%s", BM, BN, BK, S, TH, policy,
                  G::Cfg::kGrid.m, G::Cfg::kGrid.n, TA ? "T" : "N", TB ? "T" : "N", dtype_name<T>(),
                  E == Epilogue::BiasGelu ? " +bias+gelu" : "", REG ? " regstage" : "", DIV ? " static" : "");
    Entry e{name, TA, TB, std::is_same_v<T, __nv_bfloat16>, E == Epilogue::BiasGelu, REG,
            std::is_same_v<T, __nv_bfloat16> ? 80 : 75, &G::prepare, nullptr, &G::fits};
    e.launch = [](const void* a, const void* b, void* c, const void* bias, int M, int N, int K) {
        G::launch(static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(c),
                  static_cast<const T*>(bias), M, N, K);
    };
    return e;
}

// CPU reference of the rows in `rows` (all columns): C = A*B (+bias, GELU), float math.
static std::vector<float> reference(const std::vector<float>& A, const std::vector<float>& B,
                                    const std::vector<float>& bias, int M, int N, int K, bool ta, bool tb,
                                    bool epi, const std::vector<int>& rows) {
    std::vector<float> Bt(size_t(N) * K);  // [n][k]
    for (int k = 0; k < K; ++k)
        for (int n = 0; n < N; ++n) Bt[size_t(n) * K + k] = tb ? B[size_t(n) * K + k] : B[size_t(k) * N + n];
    std::vector<float> out(rows.size() * size_t(N));
    parallel_for(rows.size(), [&](size_t b, size_t e) {
        std::vector<float> arow(K);
        for (size_t ri = b; ri < e; ++ri) {
            int m = rows[ri];
            for (int k = 0; k < K; ++k) arow[k] = ta ? A[size_t(k) * M + m] : A[size_t(m) * K + k];
            for (int n = 0; n < N; ++n) {
                const float* bp = &Bt[size_t(n) * K];
                double s = 0;
                for (int k = 0; k < K; ++k) s += double(arow[k]) * bp[k];
                if (epi) {
                    s += bias[n];
                    s = 0.5 * s * (1.0 + std::erf(s * 0.70710678118654752));
                }
                out[ri * N + n] = float(s);
            }
        }
    });
    return out;
}

struct Problem {
    int M, N, K;
    std::vector<float> A, B, bias;  // values as rounded to the element type
};

template <class T>
static bool run_check(const Entry& e, int M, int N, int K, unsigned seed, double tol, int row_samples) {
    auto hA = random_vec<T>(size_t(M) * K, seed), hB = random_vec<T>(size_t(K) * N, seed + 1);
    auto hbias = random_vec<T>(N, seed + 2);
    DeviceBuf<T> dA(hA), dB(hB), dbias(hbias), dC(size_t(M) * N);
    CK(cudaMemset(dC.ptr, 0xff, dC.n * sizeof(T)));  // NaN pattern: unwritten outputs fail
    e.launch(dA.ptr, dB.ptr, dC.ptr, dbias.ptr, M, N, K);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto out = dC.download();
    std::vector<float> fA(hA.size()), fB(hB.size()), fbias(N);
    for (size_t i = 0; i < hA.size(); ++i) fA[i] = to_f(hA[i]);
    for (size_t i = 0; i < hB.size(); ++i) fB[i] = to_f(hB[i]);
    for (int i = 0; i < N; ++i) fbias[i] = to_f(hbias[i]);
    std::vector<int> rows;
    if (row_samples <= 0 || row_samples >= M) {
        for (int m = 0; m < M; ++m) rows.push_back(m);
    } else {
        std::mt19937 rng(seed);
        for (int i = 0; i < row_samples; ++i) rows.push_back(int(rng() % M));
        rows.push_back(M - 1);
    }
    auto ref = reference(fA, fB, fbias, M, N, K, e.ta, e.tb, e.epi, rows);
    std::vector<size_t> pick;
    for (int m : rows)
        for (int n = 0; n < N; ++n) pick.push_back(size_t(m) * N + n);
    ErrStat st = compare(out, ref, pick);
    bool ok = st.rel_fro < tol;
    std::printf("%s  check %-58s M=%-5d N=%-5d K=%-5d rel_fro=%.2e max_abs=%.2e\n", ok ? "[ OK ]" : "[FAIL]",
                e.name.c_str(), M, N, K, st.rel_fro, st.max_abs);
    return ok;
}

static std::vector<Entry> correctness_entries() {
    return {
        make<128, 128, 32, 3, 128, WarpPolicy::Square, false, false, __half>("Square"),
        make<128, 128, 32, 3, 128, WarpPolicy::Square, true, false, __half>("Square"),
        make<128, 128, 32, 3, 128, WarpPolicy::Square, false, true, __half>("Square"),
        make<128, 128, 32, 3, 128, WarpPolicy::Square, true, true, __half>("Square"),
        make<128, 128, 32, 3, 128, WarpPolicy::Square, false, false, __nv_bfloat16>("Square"),
        make<64, 64, 64, 2, 128, WarpPolicy::FullRow, false, false, __half>("FullRow"),
        make<64, 64, 64, 2, 128, WarpPolicy::FullCol, false, true, __nv_bfloat16>("FullCol"),
        make<64, 64, 16, 4, 64, WarpPolicy::Square, true, true, __nv_bfloat16>("Square"),
        make<128, 256, 32, 3, 256, WarpPolicy::Square, false, false, __half>("Square"),
        make<64, 40, 32, 2, 64, WarpPolicy::FullRow, false, false, __half>("FullRow"),
        make<128, 128, 32, 2, 128, WarpPolicy::Square, false, false, __half, Epilogue::None, true>("Square"),
        make<128, 128, 32, 2, 128, WarpPolicy::Square, true, true, __half, Epilogue::None, true>("Square"),
        make<128, 128, 32, 3, 128, WarpPolicy::Square, false, false, __half, Epilogue::BiasGelu>("Square"),
        make<128, 128, 64, 2, 128, WarpPolicy::Square, true, true, __half, Epilogue::BiasGelu, false, true>("Square"),
        make<128, 128, 64, 3, 128, WarpPolicy::Square, false, true, __nv_bfloat16>("Square"),
        make<64, 128, 48, 3, 128, WarpPolicy::FullCol, true, false, __half>("FullCol"),
    };
}

// Perf sweep: "static" kernels are what generated code for static shapes that divide the
// tile looks like (no bounds predicates); one runtime-bounds kernel shows that cost.
#define PERF_ENTRIES(T, E)                                                                        \
    make<128, 128, 64, 3, 128, WarpPolicy::Square, false, false, T, E>("Square"),                 \
        make<128, 128, 64, 2, 128, WarpPolicy::Square, false, false, T, E, false, true>("Square"),  \
        make<128, 128, 64, 3, 128, WarpPolicy::Square, false, false, T, E, false, true>("Square"),  \
        make<128, 128, 32, 4, 128, WarpPolicy::Square, false, false, T, E, false, true>("Square"),  \
        make<128, 256, 64, 2, 256, WarpPolicy::Square, false, false, T, E, false, true>("Square"),  \
        make<128, 128, 64, 3, 256, WarpPolicy::Square, false, false, T, E, false, true>("Square")

static bool cublas_gemm(cublasHandle_t h, bool bf16, const void* A, const void* B, void* C, int M, int N, int K) {
    const float alpha = 1.0f, beta = 0.0f;
    cudaDataType_t t = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    return cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, t, N, A, t, K, &beta, C, t, N,
                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
}

int main(int argc, char** argv) {
    require_device("gemm_bench");
    const int sm = device_sm();
    const int size = argc > 1 ? std::atoi(argv[1]) : 4096;
    const bool perf_only = argc > 2 && std::string(argv[2]) == "--perf-only";
    bool all_ok = true;
    int skipped = 0;

    // 1. correctness over shapes: aligned, boundary tiles (multiples of 8), unaligned strides.
    const int shapes[][3] = {{256, 256, 256}, {200, 136, 72}, {129, 77, 53}, {384, 320, 520}};
    for (const Entry& e : perf_only ? std::vector<Entry>{} : correctness_entries()) {
        if (sm < e.min_sm || !e.prepare()) {
            std::printf("[SKIP]  check %s (needs sm_%d or more shared memory)\n", e.name.c_str(), e.min_sm);
            ++skipped;
            continue;
        }
        for (auto& s : shapes) {
            if (!e.fits(s[0], s[1], s[2])) continue;
            bool ok = e.bf16 ? run_check<__nv_bfloat16>(e, s[0], s[1], s[2], 7u + s[0], 1e-2, 0)
                             : run_check<__half>(e, s[0], s[1], s[2], 7u + s[0], 1e-2, 0);
            all_ok = all_ok && ok;
        }
    }

    // 2. performance sweep at size^3: each config checked against the CPU on sampled rows,
    //    timed interleaved with cuBLAS on the same inputs.
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
        std::printf("[FAIL] cublasCreate\n");
        return 1;
    }
    struct Row {
        std::string name;
        double ms, tflops, cublas_ms, ratio;
    };
    std::vector<Row> table;
    Timer timer;
    const int M = size, N = size, K = size;
    const double flops = 2.0 * M * N * K;
    auto sweep = [&](std::vector<Entry> entries, auto tag) {
        using T = decltype(tag);
        const bool bf16 = std::is_same_v<T, __nv_bfloat16>;
        if (bf16 && sm < 80) return;
        auto hA = random_vec<T>(size_t(M) * K, 11), hB = random_vec<T>(size_t(K) * N, 12);
        auto hbias = random_vec<T>(N, 13);
        DeviceBuf<T> dA(hA), dB(hB), dbias(hbias), dC(size_t(M) * N);
        for (const Entry& e : entries) {
            if (!e.fits(M, N, K) || !e.prepare()) {
                std::printf("[SKIP]  perf %s (shared memory or shape)\n", e.name.c_str());
                continue;
            }
            bool ok = run_check<T>(e, M, N, K, 21, 1e-2, 48);
            all_ok = all_ok && ok;
            if (!ok) continue;
            Timing ours = timer.time([&] { e.launch(dA.ptr, dB.ptr, dC.ptr, dbias.ptr, M, N, K); });
            Timing cub = timer.time([&] { cublas_gemm(handle, bf16, dA.ptr, dB.ptr, dC.ptr, M, N, K); });
            Timing ours2 = timer.time([&] { e.launch(dA.ptr, dB.ptr, dC.ptr, dbias.ptr, M, N, K); });
            double ms = std::min(ours.median_ms, ours2.median_ms);
            table.push_back({e.name, ms, flops / ms / 1e9, cub.median_ms, cub.median_ms / ms});
        }
    };
    sweep({PERF_ENTRIES(__half, Epilogue::None)}, __half{});
    sweep({PERF_ENTRIES(__half, Epilogue::BiasGelu)}, __half{});
    sweep({make<128, 128, 64, 3, 128, WarpPolicy::Square, false, false, __nv_bfloat16, Epilogue::None, false, true>(
               "Square"),
           make<128, 128, 64, 3, 128, WarpPolicy::Square, false, false, __nv_bfloat16, Epilogue::BiasGelu, false, true>(
               "Square")},
          __nv_bfloat16{});
    cublasDestroy(handle);

    std::printf("\n== GEMM %dx%dx%d (median of 20, L2 flushed; cuBLAS timed in the same process) ==\n", M, N, K);
    std::printf("%-62s %9s %9s %11s %9s %9s\n", "config", "ms", "TFLOP/s", "cuBLAS ms", "x cuBLAS", "epi cost");
    for (auto& r : table) {
        std::string epi = "";
        const std::string tag = " +bias+gelu";
        size_t at = r.name.find(tag);
        if (at != std::string::npos) {  // cost of the fused epilogue over the same plain config
            std::string plain = r.name.substr(0, at) + r.name.substr(at + tag.size());
            for (auto& p : table)
                if (p.name == plain) {
                    char buf[32];
                    std::snprintf(buf, sizeof buf, "%+.1f%%", 100.0 * (r.ms / p.ms - 1.0));
                    epi = buf;
                }
        }
        std::printf("%-62s %9.3f %9.1f %11.3f %9.3f %9s\n", r.name.c_str(), r.ms, r.tflops, r.cublas_ms, r.ratio,
                    epi.c_str());
    }
    std::printf("gemm_bench: %s (%d skipped)\n", all_ok ? "all checks passed" : "CHECK FAILURES", skipped);
    return all_ok ? 0 : 1;
}
