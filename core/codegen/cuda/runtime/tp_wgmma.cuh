// Hopper warpgroup MMA (sm_90a): shared-memory matrix descriptors for 128B-swizzled tiles,
// wgmma fence / commit / wait, and m64nNk16 in the SS (A and B from shared memory) and RS
// (A from registers) forms for f16 and bf16 with fp32 accumulators. tp_ws_gemm.cuh builds the
// warp-specialized GEMM main loop from these; docs/tensorcore-templates.md has the contract.
// NVRTC-safe: no standard library headers. The instructions exist only for sm_90a; on other
// targets the wrappers compile to __trap() so the header still builds everywhere.
#pragma once

#include "tp_mma.cuh"
#include "tp_wgmma_ops.cuh"

namespace tp {

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TP_WGMMA_ONLY(...) __VA_ARGS__
#else
#define TP_WGMMA_ONLY(...) __trap();
#endif

// --- 128B-swizzled operand tiles ------------------------------------------------------------
// What TMA writes with CU_TENSOR_MAP_SWIZZLE_128B and wgmma reads with layout type B128: rows
// of 64 16-bit elements (128 B), 16-byte chunks XOR-swizzled by the row within each group of 8
// rows (a 1024-byte atom; tile bases must be 1024-byte aligned):
//   byte_offset(r, c) = r * 128 + ((c / 8) ^ (r % 8)) * 16 + (c % 8) * 2
// This is SmemTile<64>'s swizzle (tp_layout.cuh), so the mma.sync templates read such a tile too.
// A wider operand (an MN-major tile of more than 64 columns) is stored as consecutive 64-column
// panels: element (k, n) of a [K][N] tile lives in panel n / 64 at (k, n % 64).
__host__ __device__ constexpr int sw128_offset(int r, int c) {
    return r * 64 + (((c / 8) ^ (r % 8)) * 8) + c % 8;  // in 16-bit elements
}
__host__ __device__ constexpr int sw128_panel_offset(int k, int n, int rows) {
    return (n / 64) * rows * 64 + sw128_offset(k, n % 64);
}

// --- descriptors ----------------------------------------------------------------------------
// 64-bit wgmma matrix descriptor: start address, leading and stride byte offsets (16-byte
// units), layout type 1 = 128B swizzle, base offset 0 (tile bases 1024-byte aligned).
//   K-major operand (rows of 64 K elements): LBO unused, SBO = 1024 (next 8 rows); the k16
//     step k is selected by advancing the start address by 32 * k bytes (the hardware
//     applies the swizzle to the final address, so this stays inside the atom).
//   MN-major operand (panels of 64 M/N elements, K rows): LBO = bytes between 64-wide panels,
//     SBO = 1024 (next 8 K rows); the k16 step k starts 16 * 128 * k bytes in.
__device__ __forceinline__ unsigned long long wgmma_desc(const void* smem, unsigned lbo_bytes, unsigned sbo_bytes) {
    unsigned long long addr = static_cast<unsigned long long>(__cvta_generic_to_shared(smem));
    unsigned long long d = (addr & 0x3FFFFull) >> 4;
    d |= static_cast<unsigned long long>((lbo_bytes >> 4) & 0x3FFFu) << 16;
    d |= static_cast<unsigned long long>((sbo_bytes >> 4) & 0x3FFFu) << 32;
    d |= 1ull << 62;  // SWIZZLE_128B
    return d;
}

// The same for the 64-byte and 32-byte swizzles of narrower tiles (rows of 32 or 16 16-bit
// elements: SmemTile<32> and SmemTile<16>); bits 62-63 are the swizzle mode (1 = 128B,
// 2 = 64B, 3 = 32B), and each atom is 8 rows of the tile's row bytes.
__device__ __forceinline__ unsigned long long wgmma_desc_swizzle(const void* smem, unsigned lbo_bytes, unsigned sbo_bytes,
                                                                 int swizzle_bytes) {
    unsigned long long d = wgmma_desc(smem, lbo_bytes, sbo_bytes) & ~(3ull << 62);
    const unsigned long long mode = swizzle_bytes == 128 ? 1ull : swizzle_bytes == 64 ? 2ull : 3ull;
    return d | (mode << 62);
}

// A descriptor `units` * 16 bytes further into shared memory: only the start-address field
// (bits 0-13, the address >> 4) changes, and shared addresses stay under 2^18 bytes, so adding
// to the low word never carries into the LBO field.
__device__ __forceinline__ unsigned long long desc_at(unsigned long long desc, unsigned units) {
    const unsigned lo = static_cast<unsigned>(desc) + units;
    return (desc & 0xFFFFFFFF00000000ull) | lo;
}

// --- ordering -------------------------------------------------------------------------------
// Before the first wgmma of a batch: orders earlier register and shared-memory writes
// (accumulators, RS A fragments) before the async proxy reads them.
__device__ __forceinline__ void wgmma_fence() { TP_WGMMA_ONLY(asm volatile("wgmma.fence.sync.aligned;" ::: "memory");) }
__device__ __forceinline__ void wgmma_commit() { TP_WGMMA_ONLY(asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");) }
// Waits until at most N committed groups of this warpgroup are still running.
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    TP_WGMMA_ONLY(asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");)
}
// Keeps the compiler from moving reads or writes of the accumulators across a wait: after
// this, the registers count as rewritten here.
template <int COUNT>
__device__ __forceinline__ void wgmma_fence_operands(float* d) {
#pragma unroll
    for (int i = 0; i < COUNT; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
// The same for the packed A registers of an RS wgmma: live and unmoved until the wait.
template <int COUNT>
__device__ __forceinline__ void wgmma_fence_packed(unsigned* r) {
#pragma unroll
    for (int i = 0; i < COUNT; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

// --- m64nNk16 -------------------------------------------------------------------------------
// d (N/2 floats per thread) += A(64x16) * B(16xN), N a multiple of 8 up to 256 (tp::WgmmaOp<N>,
// defined in tp_wgmma_n<N>.cuh, which the kernel includes for its N). TRANS_A: A is
// M-major in shared memory; TRANS_B: B is K-major (N x K row-major in shared memory), i.e.
// wgmma's own default for B. Accumulator layout for thread t of the warpgroup (warp w = t / 32,
// g = (t % 32) / 4, q = t % 4), register i in [0, N/2):
//   row = 16 * w + g + 8 * ((i / 2) % 2)      col = 8 * (i / 4) + 2 * q + (i % 2)
// which is tp::AccLayout<64, N, 4, 1> (one mma.sync m16n8 tile per warp per 8 columns).
template <int N, class T, bool TRANS_A, bool TRANS_B>
__device__ __forceinline__ void wgmma_ss(float* d, unsigned long long desc_a, unsigned long long desc_b, int scale_d = 1) {
    static_assert(N % 8 == 0 && N >= 8 && N <= 256, "tp::wgmma_ss: N must be a multiple of 8 up to 256");
    TP_WGMMA_ONLY(WgmmaOp<N>::template ss<T, TRANS_A ? 1 : 0, TRANS_B ? 0 : 1>(d, desc_a, desc_b, scale_d);)
}
// m64nNk32 on fp8 (TA, TB: tp::fp8_e4_t or fp8_e5_t): both operands K-major (fp8 wgmma has no
// transpose), each k32 step 32 bytes of a row, as a k16 step is for 16-bit types; the same
// accumulator layout.
template <int N, class TA, class TB>
__device__ __forceinline__ void wgmma_ss8(float* d, unsigned long long desc_a, unsigned long long desc_b, int scale_d = 1) {
    static_assert(N % 8 == 0 && N >= 8 && N <= 256, "tp::wgmma_ss8: N must be a multiple of 8 up to 256");
    TP_WGMMA_ONLY(WgmmaOp<N>::template ss8<TA, TB>(d, desc_a, desc_b, scale_d);)
}
// RS form: a[0..3] is the thread's A fragment of the k16 step in mma.sync order (rows g and
// g + 8 of its warp's 16 rows, columns 2q.. and 2q+8..), packed pairs of T.
template <int N, class T, bool TRANS_B>
__device__ __forceinline__ void wgmma_rs(float* d, const unsigned* a, unsigned long long desc_b, int scale_d = 1) {
    static_assert(N % 8 == 0 && N >= 8 && N <= 256, "tp::wgmma_rs: N must be a multiple of 8 up to 256");
    TP_WGMMA_ONLY(WgmmaOp<N>::template rs<T, TRANS_B ? 0 : 1>(d, a, desc_b, scale_d);)
}

}  // namespace tp

#undef TP_WGMMA_ONLY
