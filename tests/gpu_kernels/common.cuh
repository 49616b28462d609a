// Shared host helpers for the standalone Tensor-Core harness (tests/gpu_kernels): error
// checks, seeded inputs, relative Frobenius error, CUDA-event timing with an L2 flush
// before every timed launch, and a result table. Not part of the CMake build.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#define CK(expr)                                                                                   \
    do {                                                                                           \
        cudaError_t err_ = (expr);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s:%d: cuda error: %s (%s)\n", __FILE__, __LINE__,               \
                         cudaGetErrorString(err_), #expr);                                         \
            std::exit(2);                                                                          \
        }                                                                                          \
    } while (0)

namespace harness {

template <class T>
inline float to_f(T v) {
    if constexpr (std::is_same_v<T, float>) return v;
    else if constexpr (std::is_same_v<T, __half>) return __half2float(v);
    else return __bfloat162float(v);
}
template <class T>
inline T from_f(float v) {
    if constexpr (std::is_same_v<T, float>) return v;
    else if constexpr (std::is_same_v<T, __half>) return __float2half_rn(v);
    else return __float2bfloat16_rn(v);
}
template <class T>
const char* dtype_name() {
    if constexpr (std::is_same_v<T, __half>) return "f16";
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bf16";
    else return "f32";
}

// Seeded uniform [-scale, scale], rounded to T.
template <class T>
std::vector<T> random_vec(size_t n, unsigned seed, float scale = 1.0f) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<T> v(n);
    for (auto& x : v) x = from_f<T>(dist(rng));
    return v;
}

template <class T>
struct DeviceBuf {
    T* ptr = nullptr;
    size_t n = 0;
    explicit DeviceBuf(size_t count) : n(count) { CK(cudaMalloc(&ptr, std::max<size_t>(count, 1) * sizeof(T))); }
    explicit DeviceBuf(const std::vector<T>& h) : DeviceBuf(h.size()) { upload(h); }
    ~DeviceBuf() { cudaFree(ptr); }
    DeviceBuf(const DeviceBuf&) = delete;
    DeviceBuf& operator=(const DeviceBuf&) = delete;
    void upload(const std::vector<T>& h) { CK(cudaMemcpy(ptr, h.data(), n * sizeof(T), cudaMemcpyHostToDevice)); }
    std::vector<T> download() const {
        std::vector<T> h(n);
        CK(cudaMemcpy(h.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
        return h;
    }
};

struct ErrStat {
    double rel_fro = 0;  // ||out - ref|| / ||ref||
    double max_abs = 0;
};
// ref is indexed like out; pick selects which output indices are compared (all if empty).
template <class T>
ErrStat compare(const std::vector<T>& out, const std::vector<float>& ref, const std::vector<size_t>& pick = {}) {
    double num = 0, den = 0, mx = 0;
    auto one = [&](size_t i, size_t ri) {
        double o = to_f(out[i]), r = ref[ri];
        double d = std::isfinite(o) ? o - r : 1e30;
        num += d * d;
        den += r * r;
        mx = std::max(mx, std::fabs(d));
    };
    if (pick.empty()) {
        for (size_t i = 0; i < out.size(); ++i) one(i, i);
    } else {
        for (size_t k = 0; k < pick.size(); ++k) one(pick[k], k);
    }
    return {std::sqrt(num / std::max(den, 1e-30)), mx};
}

// Runs f(begin, end) over [0, n) on all host cores.
inline void parallel_for(size_t n, const std::function<void(size_t, size_t)>& f) {
    unsigned nt = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
    std::vector<std::thread> ts;
    size_t chunk = (n + nt - 1) / nt;
    for (unsigned t = 0; t < nt; ++t) {
        size_t b = t * chunk, e = std::min(n, b + chunk);
        if (b < e) ts.emplace_back(f, b, e);
    }
    for (auto& t : ts) t.join();
}

// Times launch() with CUDA events: warm-up, then `iters` launches each preceded by an
// L2 flush (a 256 MiB memset, outside the timed region). Returns milliseconds per launch
// (median, min).
struct Timing {
    double median_ms = 0;
    double min_ms = 0;
};
class Timer {
  public:
    Timer() {
        CK(cudaMalloc(&flush_, kFlushBytes));
        CK(cudaEventCreate(&start_));
        CK(cudaEventCreate(&stop_));
    }
    ~Timer() {
        cudaFree(flush_);
        cudaEventDestroy(start_);
        cudaEventDestroy(stop_);
    }
    Timing time(const std::function<void()>& launch, int iters = 20, int warmup = 3) {
        for (int i = 0; i < warmup; ++i) launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<double> ms;
        for (int i = 0; i < iters; ++i) {
            CK(cudaMemsetAsync(flush_, i & 0xff, kFlushBytes));
            CK(cudaEventRecord(start_));
            launch();
            CK(cudaEventRecord(stop_));
            CK(cudaEventSynchronize(stop_));
            float t = 0;
            CK(cudaEventElapsedTime(&t, start_, stop_));
            ms.push_back(t);
        }
        CK(cudaGetLastError());
        std::sort(ms.begin(), ms.end());
        return {ms[ms.size() / 2], ms.front()};
    }

  private:
    static constexpr size_t kFlushBytes = size_t(256) << 20;
    void* flush_ = nullptr;
    cudaEvent_t start_{}, stop_{};
};

// Exits with 0 and a [SKIP] line when there is no device, so run.sh can tell.
inline void require_device(const char* what) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        std::printf("[SKIP] %s: no CUDA device\n", what);
        std::exit(0);
    }
    cudaDeviceProp p{};
    CK(cudaGetDeviceProperties(&p, 0));
    std::printf("# %s on %s (sm_%d%d, %d SMs)\n", what, p.name, p.major, p.minor, p.multiProcessorCount);
}

inline int device_sm() {
    cudaDeviceProp p{};
    CK(cudaGetDeviceProperties(&p, 0));
    return p.major * 10 + p.minor;
}

// Softmax(Q K^T / sqrt(D)) V in double for the listed rows of every head.
// Shared by fa2_test (mma.sync) and wgmma_fa_test (sm_90a).
inline std::vector<float> attention_reference(const std::vector<float>& q, const std::vector<float>& k,
                                              const std::vector<float>& v, int BH, int S, int D, bool causal,
                                              const std::vector<int>& rows) {
    std::vector<float> out(size_t(BH) * rows.size() * D);
    parallel_for(size_t(BH) * rows.size(), [&](size_t b, size_t e) {
        std::vector<double> p(S), acc(D);
        for (size_t x = b; x < e; ++x) {
            size_t h = x / rows.size();
            int i = rows[x % rows.size()];
            const float* qi = &q[(h * S + i) * D];
            double mx = -1e300;
            int n = causal ? i + 1 : S;
            for (int j = 0; j < n; ++j) {
                const float* kj = &k[(h * S + j) * D];
                double d = 0;
                for (int t = 0; t < D; ++t) d += double(qi[t]) * kj[t];
                p[j] = d / std::sqrt(double(D));
                mx = std::max(mx, p[j]);
            }
            double sum = 0;
            for (int j = 0; j < n; ++j) sum += (p[j] = std::exp(p[j] - mx));
            std::fill(acc.begin(), acc.end(), 0.0);
            for (int j = 0; j < n; ++j) {
                const float* vj = &v[(h * S + j) * D];
                for (int t = 0; t < D; ++t) acc[t] += p[j] * vj[t];
            }
            for (int t = 0; t < D; ++t) out[x * D + t] = float(acc[t] / sum);
        }
    });
    return out;
}

}  // namespace harness
