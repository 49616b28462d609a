// TilePlay device runtime, always included by generated CUDA: integer helpers and the float
// math overloads behind the DSL's T.exp, T.max, ... Kept free of other headers so NVRTC
// compiles kernels that use no half types quickly.
#pragma once

namespace tp {

__device__ __forceinline__ int ceildiv(int a, int b) { return (a + b - 1) / b; }

// A barrier over the THREADS threads that run the tile code: named barrier 1 rather than
// __syncthreads, so it also works in a warp-specialized kernel, where a producer warpgroup
// beside them never reaches it (in any other kernel THREADS is the whole block). Barrier
// counts are whole warps; other counts fall back to the block barrier.
//
// Consumer groups (TP_CONSUMER_GROUPS, see ir::WarpRolesNode): several groups of THREADS
// consumer threads each run the tile code as their own block, so each needs its own barrier:
// group 0 keeps 1, group g > 0 takes 11 + g (2-5 are the warpgroups' turns, 8-11 the TMA-store
// epilogue's per warpgroup).
__device__ __forceinline__ int group_barrier_id(int threads) {
#ifdef TP_CONSUMER_GROUPS
    const int g = static_cast<int>(threadIdx.x) / threads;
    return g == 0 ? 1 : 11 + g;
#else
    (void)threads;
    return 1;
#endif
}
template <int THREADS>
__device__ __forceinline__ void sync_threads() {
#ifdef TP_CONSUMER_GROUPS
    if constexpr (THREADS % 32 == 0) asm volatile("bar.sync %0, %1;" ::"r"(group_barrier_id(THREADS)), "n"(THREADS) : "memory");
    else __syncthreads();
#else
    if constexpr (THREADS % 32 == 0) asm volatile("bar.sync 1, %0;" ::"n"(THREADS) : "memory");
    else __syncthreads();
#endif
}
// T.sync_threads(barrier_id, arrive_count): the threads that reach it wait until `count` of
// them (whole warps) have; barrier 0 is __syncthreads' and 1 is sync_threads<THREADS>' above.
__device__ __forceinline__ void named_barrier(int id, int count) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory"); }
// Python's // and % on integers (round toward negative infinity), for index math the code
// generator cannot prove non-negative.
template <class T> __device__ __forceinline__ T floordiv(T a, T b) {
    T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
template <class T> __device__ __forceinline__ T floormod(T a, T b) {
    T r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// Float math. The half/bfloat16 overloads live in tp_half.cuh.
__device__ __forceinline__ float exp(float x) { return ::expf(x); }
__device__ __forceinline__ float exp2(float x) { return ::exp2f(x); }
__device__ __forceinline__ float exp10(float x) { return ::exp10f(x); }
__device__ __forceinline__ float log(float x) { return ::logf(x); }
__device__ __forceinline__ float log2(float x) { return ::log2f(x); }
__device__ __forceinline__ float log10(float x) { return ::log10f(x); }
__device__ __forceinline__ float rsqrt(float x) { return ::rsqrtf(x); }
__device__ __forceinline__ float sqrt(float x) { return ::sqrtf(x); }
__device__ __forceinline__ float abs(float x) { return ::fabsf(x); }
__device__ __forceinline__ float tanh(float x) { return ::tanhf(x); }
__device__ __forceinline__ float erf(float x) { return ::erff(x); }
__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + ::expf(-x)); }
__device__ __forceinline__ float sin(float x) { return ::sinf(x); }
__device__ __forceinline__ float cos(float x) { return ::cosf(x); }
__device__ __forceinline__ float tan(float x) { return ::tanf(x); }
__device__ __forceinline__ float floor(float x) { return ::floorf(x); }
__device__ __forceinline__ float ceil(float x) { return ::ceilf(x); }
__device__ __forceinline__ float round(float x) { return ::rintf(x); }
__device__ __forceinline__ float trunc(float x) { return ::truncf(x); }
__device__ __forceinline__ float pow(float x, float y) { return ::powf(x, y); }
__device__ __forceinline__ float fmod(float x, float y) { return ::fmodf(x, y); }
__device__ __forceinline__ float fma(float x, float y, float z) { return ::fmaf(x, y, z); }
__device__ __forceinline__ bool isnan(float x) { return ::isnan(x); }
__device__ __forceinline__ bool isinf(float x) { return ::isinf(x); }

// GELU with the exact (erf) definition, x * Phi(x): what the math-idioms pass makes of
// 0.5 * x * (1 + erf(x / sqrt 2)) on float32. The literal form costs about 29 SASS instructions
// per element (erff merges its two polynomial ranges with eight selects), and a fused GEMM
// epilogue over a 128 x 256 accumulator is issue-bound, so that count is the epilogue's time.
// Here Phi comes from E(t) = 0.5 * erfc(t / sqrt 2), the normal tail at t = |x|, written as
// 2^P(t), P a degree-8 polynomial (a Chebyshev fit of log2 E on [0, 6] converted to powers of
// t, scripts/fit_gelu.py). Then GELU = max(x, 0) - t * E: x (1 - E) for x >= 0 and x * E below,
// one FMA. In all: a min, 8 FMAs, one ex2, a max and an FMA, and no cancellation on the
// negative side, where the literal formula rounds 1 + erf to 0 below x = -5.4. Relative error
// against a double reference: under 5e-6 on [-6, 12]; below -6 the result is -6 E(6), about
// -6e-9 (the literal formula gives 0). NaN stays NaN (max.NaN), +inf stays +inf.
__device__ __forceinline__ float gelu_erf(float x) {
    const float t = fminf(fabsf(x), 6.0f);
    float p = 1.851897302e-08f;
    p = fmaf(p, t, -2.344307632e-06f);
    p = fmaf(p, t, 6.723233673e-05f);
    p = fmaf(p, t, -9.626898682e-04f);
    p = fmaf(p, t, 8.608923294e-03f);
    p = fmaf(p, t, -5.413147062e-02f);
    p = fmaf(p, t, -4.583221674e-01f);
    p = fmaf(p, t, -1.151295900e+00f);
    p = fmaf(p, t, -9.999929667e-01f);
    float e, pos;  // E(t) = 2^p, p in [-30, -1]: ex2.approx is within 2 ulp there, one MUFU op
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(p));
    asm("max.NaN.f32 %0, %1, 0f00000000;" : "=f"(pos) : "f"(x));
#else
    e = exp2f(p);
    pos = x != x ? x : fmaxf(x, 0.0f);
#endif
    return fmaf(-t, e, pos);
}

// Fast-math variants (hardware approximations, used when fast math is on).
__device__ __forceinline__ float fast_exp(float x) { return ::__expf(x); }
// One MUFU.EX2: the flush-to-zero form skips the denormal fix-up that plain ex2.approx.f32
// costs around every exponential (results below 2^-126 become 0, as fast math allows).
__device__ __forceinline__ float fast_exp2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float fast_exp10(float x) { return ::__exp10f(x); }
__device__ __forceinline__ float fast_log(float x) { return ::__logf(x); }
__device__ __forceinline__ float fast_log2(float x) { return ::__log2f(x); }
__device__ __forceinline__ float fast_log10(float x) { return ::__log10f(x); }
// tanh has no __ intrinsic; sm_75+ has the instruction (relative error about 2^-11), which is
// what the tanh form of GELU in a fast-math epilogue wants: one MUFU op instead of ~20.
__device__ __forceinline__ float fast_tanh(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 750
    float y;
    asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
#else
    return ::tanhf(x);
#endif
}
__device__ __forceinline__ float fast_sigmoid(float x) { return ::__fdividef(1.0f, 1.0f + ::__expf(-x)); }
__device__ __forceinline__ float fast_sin(float x) { return ::__sinf(x); }
__device__ __forceinline__ float fast_cos(float x) { return ::__cosf(x); }
__device__ __forceinline__ float fast_tan(float x) { return ::__tanf(x); }
__device__ __forceinline__ float fast_pow(float x, float y) { return ::__powf(x, y); }

// Double math for float64 kernels.
__device__ __forceinline__ double exp(double x) { return ::exp(x); }
__device__ __forceinline__ double exp2(double x) { return ::exp2(x); }
__device__ __forceinline__ double log(double x) { return ::log(x); }
__device__ __forceinline__ double log2(double x) { return ::log2(x); }
__device__ __forceinline__ double rsqrt(double x) { return ::rsqrt(x); }
__device__ __forceinline__ double sqrt(double x) { return ::sqrt(x); }
__device__ __forceinline__ double abs(double x) { return ::fabs(x); }
__device__ __forceinline__ double tanh(double x) { return ::tanh(x); }
__device__ __forceinline__ double erf(double x) { return ::erf(x); }
__device__ __forceinline__ double floor(double x) { return ::floor(x); }
__device__ __forceinline__ double ceil(double x) { return ::ceil(x); }
__device__ __forceinline__ double pow(double x, double y) { return ::pow(x, y); }

__device__ __forceinline__ int abs(int x) { return x < 0 ? -x : x; }
__device__ __forceinline__ long long abs(long long x) { return x < 0 ? -x : x; }

// min / max / clamp for every type with operator< (float, int, half_t via tp_half.cuh).
template <class T> __device__ __forceinline__ T min(T a, T b) { return b < a ? b : a; }
template <class T> __device__ __forceinline__ T max(T a, T b) { return a < b ? b : a; }
template <class T> __device__ __forceinline__ T clamp(T x, T lo, T hi) { return min(max(x, lo), hi); }

// T.reinterpret: the same bits as another type of the same width (half_t <-> uint16 in
// dequantization); memcpy is how CUDA C++ spells a bit cast without aliasing trouble.
template <class To, class From> __device__ __forceinline__ To reinterpret(From x) {
    static_assert(sizeof(To) == sizeof(From), "T.reinterpret needs types of one width");
    To y;
    memcpy(&y, &x, sizeof(To));
    return y;
}

template <class T> __device__ __forceinline__ T infinity();
template <> __device__ __forceinline__ float infinity<float>() { return __int_as_float(0x7f800000); }
template <> __device__ __forceinline__ double infinity<double>() { return __longlong_as_double(0x7ff0000000000000LL); }
template <class T> __device__ __forceinline__ T max_value();
template <> __device__ __forceinline__ float max_value<float>() { return 3.402823466e+38f; }
template <> __device__ __forceinline__ int max_value<int>() { return 2147483647; }
template <class T> __device__ __forceinline__ T min_value();
template <> __device__ __forceinline__ float min_value<float>() { return -3.402823466e+38f; }
template <> __device__ __forceinline__ int min_value<int>() { return -2147483647 - 1; }

__device__ __forceinline__ void atomic_add(float* p, float v) { ::atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(int* p, int v) { ::atomicAdd(p, v); }
__device__ __forceinline__ void atomic_add(double* p, double v) { ::atomicAdd(p, v); }
// T.atomic_add(..., return_prev=True): the value before the add.
__device__ __forceinline__ float atomic_add_prev(float* p, float v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ int atomic_add_prev(int* p, int v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ unsigned int atomic_add_prev(unsigned int* p, unsigned int v) { return ::atomicAdd(p, v); }
__device__ __forceinline__ double atomic_add_prev(double* p, double v) { return ::atomicAdd(p, v); }

// T.tvm_warp_shuffle: `v` of lane `lane` of this thread's segment of `width` lanes (every lane
// of the warp takes part). 16-bit types travel as their bits.
template <typename T> __device__ __forceinline__ T warp_shuffle(T v, int lane, int width) {
    if constexpr (sizeof(T) == 2) {
        unsigned short bits;
        memcpy(&bits, &v, 2);
        bits = static_cast<unsigned short>(__shfl_sync(0xffffffffu, static_cast<unsigned>(bits), lane, width));
        T r;
        memcpy(&r, &bits, 2);
        return r;
    } else {
        return __shfl_sync(0xffffffffu, v, lane, width);
    }
}

}  // namespace tp
