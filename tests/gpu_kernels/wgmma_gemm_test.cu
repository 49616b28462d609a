// sm_90a GEMM harness: a warp-specialized kernel built only from tp_tma.cuh, tp_wgmma.cuh
// and tp_ws_gemm.cuh (TMA + mbarrier ring, one producer warpgroup, one or two consumer
// warpgroups with setmaxnreg, wgmma kept one group deep, optional persistent grid with
// grouped tile order). Tensor maps come from cuTensorMapEncodeTiled on the host. Checks
// against cublasGemmEx on the same inputs (relative Frobenius error), then times each
// configuration against cuBLAS in the same process (CUDA events, median, L2 flushed).
// Build: build.sh (TP_ARCHS containing 90a); exit code 1 when a check fails.
#include <cublas_v2.h>
#include <cuda.h>

#include <cstring>

#include "common.cuh"
#include "cublas_ref.cuh"
#include "tma_maps.cuh"
#include "tp_copy.cuh"
#include "tp_layout.cuh"
#include "tp_ws_gemm.cuh"

using namespace harness;

static_assert(sizeof(tp::TmaDesc) == sizeof(CUtensorMap) && alignof(tp::TmaDesc) == alignof(CUtensorMap),
              "tp::TmaDesc must match CUtensorMap");

template <class T, int BM, int BN, int S, int CONS, bool PERSIST>
__global__ void __launch_bounds__(128 * (CONS + 1), 1)
    ws_gemm(const __grid_constant__ tp::TmaDesc ta, const __grid_constant__ tp::TmaDesc tb, T* C, int M, int N, int K,
            int panel) {
    using G = tp::WsGemm<T, BM, BN, 64, S, CONS, false, false>;
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    // TMA's 128B swizzle needs 1024-byte aligned slots: align the base by hand.
    unsigned base = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
    unsigned char* smem = smem_raw + ((1024 - (base & 1023)) & 1023);
    T* As = reinterpret_cast<T*>(smem);
    T* Bs = As + S * G::kAElems;
    auto* bars = reinterpret_cast<unsigned long long*>(smem + G::kBarOffset);
    const int tid = threadIdx.x;
    G::init(bars, tid);
    const int tiles_n = (N + BN - 1) / BN, tiles_m = (M + BM - 1) / BM, nk = (K + 63) / 64;
    const int ntiles = tiles_n * tiles_m;
    const int first = PERSIST ? blockIdx.x : blockIdx.x + blockIdx.y * gridDim.x;
    const int step = PERSIST ? gridDim.x : ntiles;
    if (tid >= G::kConsumerThreads) {
        tp::setmaxnreg_dec<40>();
        if (tid == G::kConsumerThreads) {
            int it = 0;
            for (int t = first; t < ntiles; t += step) {
                tp::BlockXY b = tp::rasterize(t % tiles_n, t / tiles_n, tiles_n, tiles_m, panel);
                for (int k = 0; k < nk; ++k, ++it) G::produce(&ta, &tb, As, Bs, bars, it, k * 64, b.y * BM, b.x * BN, k * 64);
            }
        }
    } else {
        tp::setmaxnreg_inc<232>();
        float acc[G::kAccSize];
        int it = 0;
        for (int t = first; t < ntiles; t += step) {
            tp::BlockXY b = tp::rasterize(t % tiles_n, t / tiles_n, tiles_n, tiles_m, panel);
            tp::fill(acc, 0.f);
            for (int k = 0; k < nk; ++k, ++it) G::consume(As, Bs, bars, it, k == 0, acc, tid);
            if (nk > 0) G::finish(bars, it - 1, acc, tid);
            T* g = C + size_t(b.y) * BM * N + size_t(b.x) * BN;
            tp::frag_store_global<tp::AccLayout<BM, BN, BM / 16, 1>>(acc, g, N, M - b.y * BM, N - b.x * BN, tid);
        }
    }
}

struct Config {
    std::string name;
    std::function<void(const void*, const void*, void*, int, int, int)> launch;
};

template <class T, int BM, int BN, int S, int CONS, bool PERSIST>
Config make_config(int sms, int panel = 8) {
    using G = tp::WsGemm<T, BM, BN, 64, S, CONS, false, false>;
    char name[128];
    std::snprintf(name, sizeof name, "wgmma %dx%dx64 s%d %d+1 WG%s %s", BM, BN, S, CONS, PERSIST ? " persistent" : "",
                  dtype_name<T>());
    auto kern = ws_gemm<T, BM, BN, S, CONS, PERSIST>;
    const int smem = G::kSmemBytes + 1024;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    Config c{name, nullptr};
    c.launch = [=](const void* a, const void* b, void* out, int M, int N, int K) {
        tp::TmaDesc ta = make_map(static_cast<const T*>(a), M, K, BM);
        tp::TmaDesc tb = make_map(static_cast<const T*>(b), K, N, 64);
        int tiles = ((M + BM - 1) / BM) * ((N + BN - 1) / BN);
        dim3 grid = PERSIST ? dim3(std::min(tiles, sms)) : dim3((N + BN - 1) / BN, (M + BM - 1) / BM);
        kern<<<grid, G::kThreads, smem>>>(ta, tb, static_cast<T*>(out), M, N, K, panel);
    };
    return c;
}

// Runs cfg and cuBLAS on the same random inputs; passes when ||ours - cublas|| / ||cublas|| < tol.
template <class T>
static bool check(cublasHandle_t h, const Config& cfg, int M, int N, int K) {
    auto hA = random_vec<T>(size_t(M) * K, 3u + M), hB = random_vec<T>(size_t(K) * N, 4u + N);
    DeviceBuf<T> dA(hA), dB(hB), dC(size_t(M) * N), dR(size_t(M) * N);
    CK(cudaMemset(dC.ptr, 0xff, dC.n * sizeof(T)));  // NaN pattern: unwritten outputs fail
    cfg.launch(dA.ptr, dB.ptr, dC.ptr, M, N, K);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    cublas_gemm(h, std::is_same_v<T, __nv_bfloat16>, dA.ptr, dB.ptr, dR.ptr, M, N, K);
    CK(cudaDeviceSynchronize());
    std::vector<T> out(dC.n), ref(dR.n);
    CK(cudaMemcpy(out.data(), dC.ptr, out.size() * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ref.data(), dR.ptr, ref.size() * sizeof(T), cudaMemcpyDeviceToHost));
    std::vector<float> reff(ref.size());
    for (size_t i = 0; i < ref.size(); ++i) reff[i] = to_f(ref[i]);
    ErrStat e = compare(out, reff);
    bool ok = e.rel_fro < 1e-2;
    std::printf("[%s] check %s %dx%dx%d: rel_fro %.3g max_abs %.3g\n", ok ? "PASS" : "FAIL", cfg.name.c_str(), M, N, K,
                e.rel_fro, e.max_abs);
    return ok;
}

int main(int argc, char** argv) {
    require_device("wgmma_gemm_test");
    if (device_sm() != 90) {
        std::printf("[SKIP] wgmma_gemm_test: needs an sm_90 GPU (no CUDA device of that kind)\n");
        return 0;
    }
    const int size = argc > 1 ? std::atoi(argv[1]) : 4096;
    cudaDeviceProp prop{};
    CK(cudaGetDeviceProperties(&prop, 0));
    const int sms = prop.multiProcessorCount;
    cublasHandle_t h;
    if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
    std::vector<Config> half_cfgs = {
        make_config<__half, 128, 256, 4, 2, false>(sms), make_config<__half, 128, 256, 4, 2, true>(sms),
        make_config<__half, 128, 128, 6, 2, true>(sms),  make_config<__half, 64, 256, 5, 1, true>(sms),
    };
    std::vector<Config> bf16_cfgs = {make_config<__nv_bfloat16, 128, 256, 4, 2, true>(sms)};
    bool ok = true;
    const int shapes[][3] = {{256, 256, 256}, {520, 1000, 776}, {1024, 768, 4096}};
    for (auto& c : half_cfgs)
        for (auto& s : shapes) ok = check<__half>(h, c, s[0], s[1], s[2]) && ok;
    for (auto& c : bf16_cfgs) ok = check<__nv_bfloat16>(h, c, 520, 1000, 776) && ok;

    const int M = size, N = size, K = size;
    const double flops = 2.0 * M * N * K;
    Timer timer;
    std::printf("\n== wgmma GEMM %dx%dx%d (median of 30, L2 flushed; cuBLAS in the same process) ==\n", M, N, K);
    std::printf("%-44s %9s %9s %11s %9s\n", "config", "ms", "TFLOP/s", "cuBLAS ms", "x cuBLAS");
    auto sweep = [&](const std::vector<Config>& cfgs, auto tag) {
        using T = decltype(tag);
        const bool bf16 = std::is_same_v<T, __nv_bfloat16>;
        auto hA = random_vec<T>(size_t(M) * K, 11), hB = random_vec<T>(size_t(K) * N, 12);
        DeviceBuf<T> dA(hA), dB(hB), dC(size_t(M) * N);
        for (const auto& c : cfgs) {
            if (!check<T>(h, c, M, N, K)) {
                ok = false;
                continue;
            }
            Timing ours = timer.time([&] { c.launch(dA.ptr, dB.ptr, dC.ptr, M, N, K); }, 30);
            Timing cub = timer.time([&] { cublas_gemm(h, bf16, dA.ptr, dB.ptr, dC.ptr, M, N, K); }, 30);
            Timing ours2 = timer.time([&] { c.launch(dA.ptr, dB.ptr, dC.ptr, M, N, K); }, 30);
            double ms = std::min(ours.median_ms, ours2.median_ms);
            std::printf("%-44s %9.4f %9.1f %11.4f %9.3f\n", c.name.c_str(), ms, flops / ms / 1e9, cub.median_ms,
                        cub.median_ms / ms);
        }
    };
    sweep(half_cfgs, __half{});
    sweep(bf16_cfgs, __nv_bfloat16{});
    cublasDestroy(h);
    std::printf("wgmma_gemm_test: %s\n", ok ? "all checks passed" : "CHECK FAILURES");
    return ok ? 0 : 1;
}
