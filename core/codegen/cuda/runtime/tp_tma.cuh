// Hopper (sm_90) asynchronous-copy building blocks: mbarriers (init, arrive, arrive with an
// expected transaction count, try_wait.parity), the tensor-memory-accelerator copy
// cp.async.bulk.tensor 2D global -> shared completing on an mbarrier, fence.proxy.async, and
// setmaxnreg (sm_90a) for warp-specialized kernels. TmaDesc is laid out like the driver's
// CUtensorMap so NVRTC needs no cuda.h: the host fills it with cuTensorMapEncodeTiled and
// passes it by value as a `const __grid_constant__ tp::TmaDesc` kernel parameter.
// NVRTC-safe: no standard library headers. Bodies compile to __trap() below sm_90 so the
// header can be included (and checked) on every target.
#pragma once

namespace tp {

// The driver's CUtensorMap: 128 opaque bytes, 128-byte aligned (as CUDA 13 declares it; the
// kernel parameter must have the same layout for cuLaunchKernel to copy it verbatim).
struct alignas(128) TmaDesc {
    unsigned long long opaque[16];
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TP_SM90_ONLY(...) __VA_ARGS__
#else
#define TP_SM90_ONLY(...) __trap();
#endif

__device__ __forceinline__ unsigned tma_smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// --- mbarriers (64-bit objects in shared memory, 8-byte aligned) --------------------------
__device__ __forceinline__ void mbar_init(unsigned long long* bar, unsigned count) {
    TP_SM90_ONLY(asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tma_smem_addr(bar)), "r"(count) : "memory");)
}
// Makes initialised barriers visible to the async proxy (the TMA unit completes on them);
// follow with a block-wide barrier before any thread uses them.
__device__ __forceinline__ void mbar_fence_init() {
    TP_SM90_ONLY(asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");)
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* bar) {
    TP_SM90_ONLY(asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(tma_smem_addr(bar)) : "memory");)
}
// One arrival that also announces `bytes` of transactions the current phase must wait for.
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* bar, unsigned bytes) {
    TP_SM90_ONLY(asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tma_smem_addr(bar)), "r"(bytes)
                              : "memory");)
}
// Waits until the phase with parity `parity` has completed. A fresh barrier is in phase 0, so
// waiting for parity 1 returns at once (producers start with empty slots that way).
__device__ __forceinline__ void mbar_wait(unsigned long long* bar, unsigned parity) {
    TP_SM90_ONLY(
        unsigned addr = tma_smem_addr(bar); unsigned done = 0; do {
            asm volatile(
                "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                : "=r"(done)
                : "r"(addr), "r"(parity)
                : "memory");
        } while (!done);)
}

// --- the tensor memory accelerator ---------------------------------------------------------
// Generic writes to shared memory that the async proxy (TMA, wgmma) reads next need this in
// each writing thread before the barrier that publishes them.
__device__ __forceinline__ void fence_proxy_async() {
    TP_SM90_ONLY(asm volatile("fence.proxy.async.shared::cta;" ::: "memory");)
}
__device__ __forceinline__ void tma_prefetch_desc(const TmaDesc* map) {
    TP_SM90_ONLY(asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<unsigned long long>(map)) : "memory");)
}
// Copies the box at element coordinates (c0 innermost, c1) of the tensor described by `map`
// into shared memory at `dst` (aligned to the swizzle span: 1024 B for 128B swizzle) and
// signals `bar` with the bytes written. Elements outside the tensor arrive as zeros.
__device__ __forceinline__ void tma_load_2d(void* dst, const TmaDesc* map, int c0, int c1, unsigned long long* bar) {
    TP_SM90_ONLY(asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
            tma_smem_addr(dst)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(tma_smem_addr(bar)), "r"(c0), "r"(c1)
        : "memory");)
}
// Shared -> global box store (the bulk-group form: commit, then wait before reusing `src`).
__device__ __forceinline__ void tma_store_2d(const TmaDesc* map, const void* src, int c0, int c1) {
    TP_SM90_ONLY(asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(
                                  reinterpret_cast<unsigned long long>(map)),
                              "r"(tma_smem_addr(src)), "r"(c0), "r"(c1)
                              : "memory");)
}
__device__ __forceinline__ void tma_store_commit() { TP_SM90_ONLY(asm volatile("cp.async.bulk.commit_group;" ::: "memory");) }
__device__ __forceinline__ void tma_store_wait_all() { TP_SM90_ONLY(asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");) }

// --- register reallocation between warpgroups (sm_90a) -------------------------------------
// Takes effect only when the kernel has a register cap at entry (__launch_bounds__(T, 1)) and
// every warp of a warpgroup executes the same one; the counts are multiples of 8 in [24, 256].
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && defined(__CUDA_ARCH_FEAT_SM90_ALL)
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(REGS));
}
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(REGS));
}
#else
template <int REGS>
__device__ __forceinline__ void setmaxnreg_inc() {}  // a hint: without sm_90a the split is static
template <int REGS>
__device__ __forceinline__ void setmaxnreg_dec() {}
#endif

// Index and parity of ring slot use number `it` (0, 1, 2, ...) in a ring of STAGES slots.
template <int STAGES>
struct RingPos {
    int stage;
    unsigned phase;
    __device__ __forceinline__ explicit RingPos(int it) : stage(it % STAGES), phase(static_cast<unsigned>(it / STAGES) & 1u) {}
};

}  // namespace tp

#undef TP_SM90_ONLY
