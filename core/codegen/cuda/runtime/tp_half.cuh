// Half and bfloat16 for generated CUDA without cuda_fp16.h / cuda_bf16.h (parsing those costs
// NVRTC about 120 ms per kernel): half_t / bfloat16_t are 16-bit structs converting through
// float with single PTX instructions (cvt.rn.f16.f32, cvt.f32.f16, cvt.rn.bf16.f32 on sm_80+,
// integer round-to-nearest-even below). Arithmetic promotes to float, which is what the
// hardware does for these types anyway, and a store rounds once.
// The few cuda_fp16.h names the Tensor-Core templates use (__half, __half2, __floats2half2_rn,
// ...) are defined here too; NVRTC resolves <cuda_fp16.h> / <cuda_bf16.h> to this header
// (runtime/nvrtc.cpp), so the templates compile unchanged under NVRTC and with nvcc.
#pragma once

#include "tp_common.cuh"

namespace tp {

__device__ __forceinline__ unsigned short f32_to_f16_bits(float f) {
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float f16_bits_to_f32(unsigned short h) {
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
__device__ __forceinline__ unsigned short f32_to_bf16_bits(float f) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned short h;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
#else
    // sm_75 has no bf16 conversion: round to nearest even on the bits; NaN stays a quiet NaN.
    unsigned u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<unsigned short>(u >> 16);
#endif
}
__device__ __forceinline__ float bf16_bits_to_f32(unsigned short h) { return __uint_as_float(static_cast<unsigned>(h) << 16); }

// Two floats to a packed pair in one instruction (cvt.rn.f16x2.f32 / bf16x2, sm_80+): lo in
// the low 16 bits. Half the conversions of two single ones, which run at a quarter of the
// rate of ordinary arithmetic.
__device__ __forceinline__ unsigned f32x2_to_f16x2(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
#else
    return static_cast<unsigned>(f32_to_f16_bits(lo)) | (static_cast<unsigned>(f32_to_f16_bits(hi)) << 16);
#endif
}
__device__ __forceinline__ unsigned f32x2_to_bf16x2(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
#else
    return static_cast<unsigned>(f32_to_bf16_bits(lo)) | (static_cast<unsigned>(f32_to_bf16_bits(hi)) << 16);
#endif
}

}  // namespace tp

struct __align__(2) half_t {
    unsigned short bits;
    half_t() = default;
    __device__ __forceinline__ half_t(float f) : bits(tp::f32_to_f16_bits(f)) {}
    __device__ __forceinline__ half_t(double f) : bits(tp::f32_to_f16_bits(static_cast<float>(f))) {}
    __device__ __forceinline__ half_t(int v) : bits(tp::f32_to_f16_bits(static_cast<float>(v))) {}
    __device__ __forceinline__ operator float() const { return tp::f16_bits_to_f32(bits); }
    static __device__ __forceinline__ half_t from_bits(unsigned short b) {
        half_t h;
        h.bits = b;
        return h;
    }
};

struct __align__(2) bfloat16_t {
    unsigned short bits;
    bfloat16_t() = default;
    __device__ __forceinline__ bfloat16_t(float f) : bits(tp::f32_to_bf16_bits(f)) {}
    __device__ __forceinline__ bfloat16_t(double f) : bits(tp::f32_to_bf16_bits(static_cast<float>(f))) {}
    __device__ __forceinline__ bfloat16_t(int v) : bits(tp::f32_to_bf16_bits(static_cast<float>(v))) {}
    __device__ __forceinline__ operator float() const { return tp::bf16_bits_to_f32(bits); }
    static __device__ __forceinline__ bfloat16_t from_bits(unsigned short b) {
        bfloat16_t h;
        h.bits = b;
        return h;
    }
};

// 8-bit floats (sm_89+; the compiler rejects them for older targets before codegen). The
// hardware converts pairs: cvt packs two values into 16 bits, we keep the low byte.
#define TP_FP8_TYPE(T, PTX, E5M2)                                                                        \
    struct __align__(1) T {                                                                              \
        static constexpr bool kE5M2 = E5M2; /* which format the mma / wgmma suffix names */             \
        unsigned char bits;                                                                              \
        T() = default;                                                                                   \
        __device__ __forceinline__ T(float f) : bits(tp_fp8_from_f32(f)) {}                              \
        __device__ __forceinline__ T(double f) : bits(tp_fp8_from_f32(static_cast<float>(f))) {}        \
        __device__ __forceinline__ T(int v) : bits(tp_fp8_from_f32(static_cast<float>(v))) {}           \
        __device__ __forceinline__ operator float() const {                                              \
            unsigned out = 0;                                                                            \
            asm("cvt.rn.f16x2." PTX "x2 %0, %1;" : "=r"(out) : "h"(static_cast<unsigned short>(bits))); \
            return tp::f16_bits_to_f32(static_cast<unsigned short>(out & 0xffffu));                       \
        }                                                                                                \
        static __device__ __forceinline__ unsigned char tp_fp8_from_f32(float f) {                       \
            unsigned short r = 0;                                                                        \
            asm("cvt.rn.satfinite." PTX "x2.f32 %0, %1, %2;" : "=h"(r) : "f"(0.0f), "f"(f));             \
            return static_cast<unsigned char>(r & 0xffu);                                                \
        }                                                                                                \
    };
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
TP_FP8_TYPE(fp8_e4_t, "e4m3", false)
TP_FP8_TYPE(fp8_e5_t, "e5m2", true)
#define TP_FP8_TYPES 1  // the fragment templates convert to and from them
#endif
#undef TP_FP8_TYPE

// In-place arithmetic on 16-bit values (`x += y` in kernels) goes through float.
#define TP_HALF_COMPOUND(T, op)                                                                       \
    __device__ __forceinline__ T& operator op##=(T& a, float b) { return a = T(static_cast<float>(a) op b); }
TP_HALF_COMPOUND(half_t, +) TP_HALF_COMPOUND(half_t, -) TP_HALF_COMPOUND(half_t, *) TP_HALF_COMPOUND(half_t, /)
TP_HALF_COMPOUND(bfloat16_t, +) TP_HALF_COMPOUND(bfloat16_t, -) TP_HALF_COMPOUND(bfloat16_t, *) TP_HALF_COMPOUND(bfloat16_t, /)
#undef TP_HALF_COMPOUND

// --- the cuda_fp16.h / cuda_bf16.h subset the Tensor-Core templates use ----------------------
#if !defined(__CUDA_FP16_H__) && !defined(__CUDA_BF16_H__)
using __half = half_t;
using __nv_bfloat16 = bfloat16_t;
struct __align__(4) __half2 {
    half_t x, y;
};
struct __align__(4) __nv_bfloat162 {
    bfloat16_t x, y;
};
__device__ __forceinline__ float __half2float(half_t h) { return static_cast<float>(h); }
__device__ __forceinline__ half_t __float2half_rn(float f) { return half_t(f); }
__device__ __forceinline__ half_t __float2half(float f) { return half_t(f); }
__device__ __forceinline__ float __bfloat162float(bfloat16_t h) { return static_cast<float>(h); }
__device__ __forceinline__ bfloat16_t __float2bfloat16_rn(float f) { return bfloat16_t(f); }
__device__ __forceinline__ bfloat16_t __float2bfloat16(float f) { return bfloat16_t(f); }
__device__ __forceinline__ __half2 __floats2half2_rn(float a, float b) {
    unsigned p = tp::f32x2_to_f16x2(a, b);
    return __half2{half_t::from_bits(static_cast<unsigned short>(p)), half_t::from_bits(static_cast<unsigned short>(p >> 16))};
}
__device__ __forceinline__ __nv_bfloat162 __floats2bfloat162_rn(float a, float b) {
    unsigned p = tp::f32x2_to_bf16x2(a, b);
    return __nv_bfloat162{bfloat16_t::from_bits(static_cast<unsigned short>(p)), bfloat16_t::from_bits(static_cast<unsigned short>(p >> 16))};
}
#endif

namespace tp {

#define TP_HALF_UNARY(name)                                                                       \
    __device__ __forceinline__ half_t name(half_t x) { return half_t(name(static_cast<float>(x))); } \
    __device__ __forceinline__ bfloat16_t name(bfloat16_t x) { return bfloat16_t(name(static_cast<float>(x))); }
TP_HALF_UNARY(exp) TP_HALF_UNARY(exp2) TP_HALF_UNARY(exp10) TP_HALF_UNARY(log) TP_HALF_UNARY(log2)
TP_HALF_UNARY(log10) TP_HALF_UNARY(rsqrt) TP_HALF_UNARY(sqrt) TP_HALF_UNARY(abs) TP_HALF_UNARY(tanh)
TP_HALF_UNARY(erf) TP_HALF_UNARY(sigmoid) TP_HALF_UNARY(sin) TP_HALF_UNARY(cos) TP_HALF_UNARY(tan)
TP_HALF_UNARY(floor) TP_HALF_UNARY(ceil) TP_HALF_UNARY(round) TP_HALF_UNARY(trunc)
TP_HALF_UNARY(fast_exp) TP_HALF_UNARY(fast_exp2) TP_HALF_UNARY(fast_exp10) TP_HALF_UNARY(fast_log)
TP_HALF_UNARY(fast_log2) TP_HALF_UNARY(fast_log10) TP_HALF_UNARY(fast_tanh) TP_HALF_UNARY(fast_sigmoid)
TP_HALF_UNARY(fast_sin) TP_HALF_UNARY(fast_cos) TP_HALF_UNARY(fast_tan)
#undef TP_HALF_UNARY

#define TP_HALF_BINARY(name)                                                                        \
    __device__ __forceinline__ half_t name(half_t x, half_t y) {                                    \
        return half_t(name(static_cast<float>(x), static_cast<float>(y)));                          \
    }                                                                                               \
    __device__ __forceinline__ bfloat16_t name(bfloat16_t x, bfloat16_t y) {                        \
        return bfloat16_t(name(static_cast<float>(x), static_cast<float>(y)));                      \
    }
TP_HALF_BINARY(pow) TP_HALF_BINARY(fmod) TP_HALF_BINARY(fast_pow)
#undef TP_HALF_BINARY

__device__ __forceinline__ half_t fma(half_t x, half_t y, half_t z) { return half_t(::fmaf(x, y, z)); }
__device__ __forceinline__ bool isnan(half_t x) { return (x.bits & 0x7fff) > 0x7c00; }
__device__ __forceinline__ bool isinf(half_t x) { return (x.bits & 0x7fff) == 0x7c00; }
__device__ __forceinline__ bool isnan(bfloat16_t x) { return (x.bits & 0x7fff) > 0x7f80; }
__device__ __forceinline__ bool isinf(bfloat16_t x) { return (x.bits & 0x7fff) == 0x7f80; }

// min / max keep the 16-bit type (the generic templates would compare through float and
// return the operand, which is the same; spelled out so overload resolution is unambiguous).
__device__ __forceinline__ half_t min(half_t a, half_t b) { return static_cast<float>(b) < static_cast<float>(a) ? b : a; }
__device__ __forceinline__ half_t max(half_t a, half_t b) { return static_cast<float>(a) < static_cast<float>(b) ? b : a; }
__device__ __forceinline__ bfloat16_t min(bfloat16_t a, bfloat16_t b) { return static_cast<float>(b) < static_cast<float>(a) ? b : a; }
__device__ __forceinline__ bfloat16_t max(bfloat16_t a, bfloat16_t b) { return static_cast<float>(a) < static_cast<float>(b) ? b : a; }

template <> __device__ __forceinline__ half_t infinity<half_t>() { return half_t::from_bits(0x7c00); }
template <> __device__ __forceinline__ bfloat16_t infinity<bfloat16_t>() { return bfloat16_t::from_bits(0x7f80); }
template <> __device__ __forceinline__ half_t max_value<half_t>() { return half_t::from_bits(0x7bff); }
template <> __device__ __forceinline__ half_t min_value<half_t>() { return half_t::from_bits(0xfbff); }
template <> __device__ __forceinline__ bfloat16_t max_value<bfloat16_t>() { return bfloat16_t::from_bits(0x7f7f); }
template <> __device__ __forceinline__ bfloat16_t min_value<bfloat16_t>() { return bfloat16_t::from_bits(0xff7f); }

// f16 atomic add in hardware (sm_70+); bf16 through a compare-and-swap on the 32-bit word.
__device__ __forceinline__ void atomic_add(half_t* p, half_t v) {
    asm volatile("{ .reg .b16 old; atom.global.add.noftz.f16 old, [%0], %1; }" ::"l"(p), "h"(v.bits) : "memory");
}
__device__ __forceinline__ void atomic_add(bfloat16_t* p, bfloat16_t v) {
    unsigned* word = reinterpret_cast<unsigned*>(reinterpret_cast<unsigned long long>(p) & ~3ull);
    const unsigned shift = (reinterpret_cast<unsigned long long>(p) & 2ull) ? 16u : 0u;
    unsigned old = *word, assumed;
    do {
        assumed = old;
        bfloat16_t cur = bfloat16_t::from_bits(static_cast<unsigned short>(assumed >> shift));
        unsigned short sum = bfloat16_t(static_cast<float>(cur) + static_cast<float>(v)).bits;
        unsigned next = (assumed & ~(0xffffu << shift)) | (static_cast<unsigned>(sum) << shift);
        old = ::atomicCAS(word, assumed, next);
    } while (old != assumed);
}

}  // namespace tp

namespace tp {

// A fragment of N floats converted to f16 / bf16 two elements per instruction (T.copy between
// fragments of one layout).
__device__ __forceinline__ unsigned f32x2_to(float lo, float hi, const half_t*) { return f32x2_to_f16x2(lo, hi); }
__device__ __forceinline__ unsigned f32x2_to(float lo, float hi, const bfloat16_t*) { return f32x2_to_bf16x2(lo, hi); }
template <int N, class T>
__device__ __forceinline__ void frag_cvt_pairs(const float* src, T* dst) {
    static_assert(N % 2 == 0 && sizeof(T) == 2, "tp::frag_cvt_pairs converts pairs of floats to 16-bit elements");
#pragma unroll
    for (int i = 0; i < N; i += 2) {
        const unsigned p = f32x2_to(src[i], src[i + 1], dst);
        dst[i] = T::from_bits(static_cast<unsigned short>(p));
        dst[i + 1] = T::from_bits(static_cast<unsigned short>(p >> 16));
    }
}

}  // namespace tp
