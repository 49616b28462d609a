// TilePlay device runtime, always included by generated CUDA: integer helpers and the float
// math overloads behind the DSL's T.exp, T.max, ... Kept free of other headers so NVRTC
// compiles kernels that use no half types quickly.
#pragma once

namespace tp {

__device__ __forceinline__ int ceildiv(int a, int b) { return (a + b - 1) / b; }
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

// Fast-math variants (hardware approximations, used when fast math is on).
__device__ __forceinline__ float fast_exp(float x) { return ::__expf(x); }
__device__ __forceinline__ float fast_exp2(float x) { return ::exp2f(x); }
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

}  // namespace tp
