// Building blocks of the general producer/consumer kernels that transform/warp_specialize
// makes on sm_90a: TMA box loads of any rank (1-5) into shared memory completing on an
// mbarrier, the consumers' release of a ring slot (one arrival per warp), and the named
// barrier the consumer warpgroups use instead of __syncthreads (the producer warpgroup never
// reaches it). The structure of the kernel (which copies, rings, waits and releases, and in
// what order) is the pass's; only the instructions live here.
// NVRTC-safe: no standard library headers; bodies compile to __trap() below sm_90.
#pragma once

#include "tp_tma.cuh"

namespace tp {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TP_WS_SM90(...) __VA_ARGS__
#else
#define TP_WS_SM90(...) __trap();
#endif

// The box of `map` at element coordinates c0 (innermost), c1, ... into `dst`, signalling the
// bytes on `bar`. Elements outside the tensor arrive as zeros.
__device__ __forceinline__ void tma_load(void* dst, const TmaDesc* map, unsigned long long* bar, int c0) {
    TP_WS_SM90(asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3}], [%2];" ::"r"(
                                tma_smem_addr(dst)),
                            "l"(reinterpret_cast<unsigned long long>(map)), "r"(tma_smem_addr(bar)), "r"(c0)
                            : "memory");)
}
__device__ __forceinline__ void tma_load(void* dst, const TmaDesc* map, unsigned long long* bar, int c0, int c1) {
    TP_WS_SM90(asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];" ::"r"(
                                tma_smem_addr(dst)),
                            "l"(reinterpret_cast<unsigned long long>(map)), "r"(tma_smem_addr(bar)), "r"(c0), "r"(c1)
                            : "memory");)
}
__device__ __forceinline__ void tma_load(void* dst, const TmaDesc* map, unsigned long long* bar, int c0, int c1, int c2) {
    TP_WS_SM90(asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(
            tma_smem_addr(dst)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(tma_smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2)
        : "memory");)
}
__device__ __forceinline__ void tma_load(void* dst, const TmaDesc* map, unsigned long long* bar, int c0, int c1, int c2, int c3) {
    TP_WS_SM90(asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6}], [%2];" ::"r"(
            tma_smem_addr(dst)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(tma_smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
        : "memory");)
}
__device__ __forceinline__ void tma_load(void* dst, const TmaDesc* map, unsigned long long* bar, int c0, int c1, int c2, int c3,
                                         int c4) {
    TP_WS_SM90(asm volatile(
        "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(
            tma_smem_addr(dst)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(tma_smem_addr(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4)
        : "memory");)
}

// The consumers are done with a ring slot: one arrival per warp, after every lane's accesses
// (the empty barrier counts warps). mbarrier.arrive releases the lane's earlier accesses.
__device__ __forceinline__ void ring_release(unsigned long long* bar) {
    __syncwarp();
    if ((threadIdx.x & 31) == 0) mbar_arrive(bar);
}

// The same for a slot the consumers read through the generic proxy (ld.shared into registers):
// TMA refills it through the async proxy, so every lane fences its reads against that first.
// Without it, a 2-slot ring whose tile was loaded into registers by two warpgroups taking
// turns got refilled under reads still in flight (wrong results on the H200).
__device__ __forceinline__ void ring_release_generic(unsigned long long* bar) {
    fence_proxy_async();
    __syncwarp();
    if ((threadIdx.x & 31) == 0) mbar_arrive(bar);
}

// The producer takes a slot: waits until the consumers released its previous use (parity
// phase ^ 1: a fresh barrier lets the first pass through at once), then announces the bytes
// the coming loads bring.
__device__ __forceinline__ void ring_acquire(unsigned long long* empty, unsigned long long* full, unsigned phase, unsigned bytes) {
    mbar_wait(empty, phase ^ 1u);
    mbar_arrive_expect_tx(full, bytes);
}

// A barrier over the THREADS consumer threads only (named barrier 1, as tp::sync_threads; a
// consumer group's own barrier with TP_CONSUMER_GROUPS).
template <int THREADS>
__device__ __forceinline__ void consumer_sync() {
#ifdef TP_CONSUMER_GROUPS
    asm volatile("bar.sync %0, %1;" ::"r"(group_barrier_id(THREADS)), "n"(THREADS) : "memory");
#else
    asm volatile("bar.sync 1, %0;" ::"n"(THREADS) : "memory");
#endif
}

}  // namespace tp

#undef TP_WS_SM90
