// Half and bfloat16 for generated CUDA: half_t / bfloat16_t are CUDA's __half / __nv_bfloat16
// (cuda_fp16.h / cuda_bf16.h ship inside NVRTC since CUDA 12). Math goes through float, which
// is what the hardware does for these functions anyway.
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "tp_common.cuh"

using half_t = __half;
using bfloat16_t = __nv_bfloat16;

namespace tp {

#define TP_HALF_UNARY(name)                                                                        \
    __device__ __forceinline__ half_t name(half_t x) { return __float2half(name(__half2float(x))); } \
    __device__ __forceinline__ bfloat16_t name(bfloat16_t x) { return __float2bfloat16(name(__bfloat162float(x))); }
TP_HALF_UNARY(exp) TP_HALF_UNARY(exp2) TP_HALF_UNARY(exp10) TP_HALF_UNARY(log) TP_HALF_UNARY(log2)
TP_HALF_UNARY(log10) TP_HALF_UNARY(rsqrt) TP_HALF_UNARY(sqrt) TP_HALF_UNARY(abs) TP_HALF_UNARY(tanh)
TP_HALF_UNARY(erf) TP_HALF_UNARY(sigmoid) TP_HALF_UNARY(sin) TP_HALF_UNARY(cos) TP_HALF_UNARY(tan)
TP_HALF_UNARY(floor) TP_HALF_UNARY(ceil) TP_HALF_UNARY(round) TP_HALF_UNARY(trunc)
TP_HALF_UNARY(fast_exp) TP_HALF_UNARY(fast_exp2) TP_HALF_UNARY(fast_exp10) TP_HALF_UNARY(fast_log)
TP_HALF_UNARY(fast_log2) TP_HALF_UNARY(fast_log10) TP_HALF_UNARY(fast_tanh) TP_HALF_UNARY(fast_sigmoid)
TP_HALF_UNARY(fast_sin) TP_HALF_UNARY(fast_cos) TP_HALF_UNARY(fast_tan)
#undef TP_HALF_UNARY

#define TP_HALF_BINARY(name)                                                                                 \
    __device__ __forceinline__ half_t name(half_t x, half_t y) {                                             \
        return __float2half(name(__half2float(x), __half2float(y)));                                         \
    }                                                                                                        \
    __device__ __forceinline__ bfloat16_t name(bfloat16_t x, bfloat16_t y) {                                 \
        return __float2bfloat16(name(__bfloat162float(x), __bfloat162float(y)));                             \
    }
TP_HALF_BINARY(pow) TP_HALF_BINARY(fmod) TP_HALF_BINARY(fast_pow)
#undef TP_HALF_BINARY

__device__ __forceinline__ half_t fma(half_t x, half_t y, half_t z) { return __hfma(x, y, z); }
__device__ __forceinline__ bool isnan(half_t x) { return __hisnan(x); }
__device__ __forceinline__ bool isinf(half_t x) { return __hisinf(x) != 0; }
__device__ __forceinline__ bool isnan(bfloat16_t x) { return ::isnan(__bfloat162float(x)); }
__device__ __forceinline__ bool isinf(bfloat16_t x) { return ::isinf(__bfloat162float(x)); }

template <> __device__ __forceinline__ half_t infinity<half_t>() { return __ushort_as_half(0x7c00); }
template <> __device__ __forceinline__ bfloat16_t infinity<bfloat16_t>() { return __ushort_as_bfloat16(0x7f80); }
template <> __device__ __forceinline__ half_t max_value<half_t>() { return __ushort_as_half(0x7bff); }
template <> __device__ __forceinline__ half_t min_value<half_t>() { return __ushort_as_half(0xfbff); }
template <> __device__ __forceinline__ bfloat16_t max_value<bfloat16_t>() { return __ushort_as_bfloat16(0x7f7f); }
template <> __device__ __forceinline__ bfloat16_t min_value<bfloat16_t>() { return __ushort_as_bfloat16(0xff7f); }

__device__ __forceinline__ void atomic_add(half_t* p, half_t v) { ::atomicAdd(p, v); }

}  // namespace tp
