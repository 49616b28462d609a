// Thin PTX wrappers for Tensor-Core GEMM building blocks: shared-memory addresses,
// ldmatrix (x1/x2/x4, optional .trans), mma.sync m16n8k16 (f16/bf16, sm_80+) and
// m16n8k8 (f16, sm_75), and register packing. Every other tp_*.cuh builds on these;
// generated code may also call them directly. NVRTC-safe: no standard library headers.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace tp {

// 32-bit shared-state-space address of a generic pointer into __shared__ memory
// (what ldmatrix / cp.async expect).
__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// --- element traits: which mma flavour a 16-bit element type uses -------------------
template <class T>
struct MmaElem;  // only __half and __nv_bfloat16 are Tensor-Core operands here
template <>
struct MmaElem<__half> {
    static constexpr bool is_bf16 = false;
};
template <>
struct MmaElem<__nv_bfloat16> {
    static constexpr bool is_bf16 = true;
};
// Two fp8 elements of A (format TA) or B (TB) seen as one 16-bit unit: a K-major fp8 tile of
// K bytes per row is, byte for byte, a 16-bit tile of K / 2 columns, and the m16n8k32 fp8
// fragments are exactly the m16n8k16 fragments of that view. The ldmatrix templates run on
// the view; mma_k16 on it issues the k32 fp8 mma (sm_89+).
template <class TA, class TB>
struct Fp8Pair {
    unsigned short bits;
};
template <class TA, class TB>
struct MmaElem<Fp8Pair<TA, TB>> {
    static constexpr bool is_bf16 = false;
};
template <class T>
struct IsFp8Pair {
    static constexpr bool value = false;
};
template <class TA, class TB>
struct IsFp8Pair<Fp8Pair<TA, TB>> {
    static constexpr bool value = true;
};

// Raw 16 bits of a 2-byte element and packing of two into one 32-bit mma register
// (low half = lower column / k index, as mma and ldmatrix lay them out).
template <class T>
__device__ __forceinline__ unsigned bits16(const T& v) {
    static_assert(sizeof(T) == 2, "tp::bits16 needs a 16-bit element type");
    return static_cast<unsigned>(*reinterpret_cast<const unsigned short*>(&v));
}
template <class T>
__device__ __forceinline__ unsigned pack2(const T& lo, const T& hi) {
    return bits16(lo) | (bits16(hi) << 16);
}
// Two floats rounded (RNE) to a packed f16x2 / bf16x2 register.
template <class T>
__device__ __forceinline__ unsigned pack_float2(float lo, float hi);
// From sm_80 one cvt writes the packed register itself: going through __half2 splits it into
// two 16-bit halves that ptxas puts back together with a shift and a PRMT per word (64 extra
// instructions an iteration in an attention loop's P packing).
template <>
__device__ __forceinline__ unsigned pack_float2<__half>(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
#else
    __half2 h = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<unsigned*>(&h);
#endif
}
template <>
__device__ __forceinline__ unsigned pack_float2<__nv_bfloat16>(float lo, float hi) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
#else
    __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned*>(&h);
#endif
}

// --- ldmatrix: lanes 8i..8i+7 give the 8 row addresses of matrix i; register i of lane l
// receives row l/4, columns 2*(l%4), 2*(l%4)+1 of matrix i (transposed with .trans). -----
__device__ __forceinline__ void ldmatrix_x1(unsigned& r0, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r0) : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2(unsigned& r0, unsigned& r1, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r0), "=r"(r1)
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3,
                                            unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2_trans(unsigned& r0, unsigned& r1, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r0), "=r"(r1)
                 : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned& r0, unsigned& r1, unsigned& r2,
                                                  unsigned& r3, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
                 : "r"(addr));
}

// --- mma.sync: d (4 floats, C layout) += a (4 regs, A 16x16 row) * b (2 regs, B 16x8 col) ---
// Fragment layout (g = lane/4, t = lane%4):
//   a0: A[g][2t..2t+1]  a1: A[g+8][2t..]  a2: A[g][2t+8..]  a3: A[g+8][2t+8..]
//   b0: B[2t..2t+1][g]  b1: B[2t+8..][g]
//   d0,d1: C[g][2t..2t+1]  d2,d3: C[g+8][2t..2t+1]
__device__ __forceinline__ void mma_m16n8k16_f16(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                                 unsigned b1) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    // sm_75 has only m16n8k8 for f16: the k16 step is two k8 steps over the same fragments
    // (a0/a1 + b0 cover k 0..7, a2/a3 + b1 cover k 8..15).
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b0));
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[2]), "r"(a[3]), "r"(b1));
#endif
}

__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                                  unsigned b1) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#else
    // bf16 mma does not exist before sm_80; the compiler's target check rejects it earlier,
    // so reaching this in device code is a contract violation.
    __trap();
#endif
}

// m16n8k32 on fp8 (e4m3 / e5m2 for A and B independently), fp32 accumulators; sm_89+.
template <bool A_E5M2, bool B_E5M2>
__device__ __forceinline__ void mma_m16n8k32_fp8(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define TP_MMA_FP8(TA, TB)                                                                                          \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, " \
                 "{%8, %9}, {%0, %1, %2, %3};\n"                                                                 \
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                               \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
    if constexpr (!A_E5M2 && !B_E5M2) TP_MMA_FP8("e4m3", "e4m3");
    else if constexpr (!A_E5M2 && B_E5M2) TP_MMA_FP8("e4m3", "e5m2");
    else if constexpr (A_E5M2 && !B_E5M2) TP_MMA_FP8("e5m2", "e4m3");
    else TP_MMA_FP8("e5m2", "e5m2");
#undef TP_MMA_FP8
#else
    // fp8 mma does not exist before sm_89; check_resources rejects such a gemm earlier.
    __trap();
#endif
}

template <class TA, class TB>
__device__ __forceinline__ void mma_fp8_pair(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1, Fp8Pair<TA, TB>*) {
    mma_m16n8k32_fp8<TA::kE5M2, TB::kE5M2>(d, a, b0, b1);
}

// Dispatch on the element type (one k16 step; one k32 step of an Fp8Pair view).
template <class T>
__device__ __forceinline__ void mma_k16(float (&d)[4], const unsigned (&a)[4], unsigned b0,
                                        unsigned b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    static_assert(!MmaElem<T>::is_bf16, "bf16 mma.sync needs sm_80 or newer");
#endif
    if constexpr (IsFp8Pair<T>::value) {
        mma_fp8_pair(d, a, b0, b1, static_cast<T*>(nullptr));
    } else if constexpr (MmaElem<T>::is_bf16) {
        mma_m16n8k16_bf16(d, a, b0, b1);
    } else {
        mma_m16n8k16_f16(d, a, b0, b1);
    }
}

}  // namespace tp
