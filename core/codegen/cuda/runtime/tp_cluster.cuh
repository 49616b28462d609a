// Hopper (sm_90) thread-block-cluster and warpgroup building blocks: the block's rank in its
// cluster, a cluster-wide barrier, an mbarrier arrival on the same barrier in another block of
// the cluster (mapa), the TMA load that multicasts one box into several blocks' shared memory,
// named barriers between warpgroups (the consumers' ping-pong turns of warp-specialized
// kernels), and the wait for bulk stores to have finished reading shared memory.
// NVRTC-safe: no standard library headers. Bodies compile to __trap() below sm_90 so the
// header can be included on every target.
#pragma once

#include "tp_tma.cuh"

namespace tp {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TP_SM90_CLUSTER(...) __VA_ARGS__
#else
#define TP_SM90_CLUSTER(...) __trap();
#endif

__device__ __forceinline__ unsigned cluster_ctarank() {
    unsigned r = 0;
    TP_SM90_CLUSTER(asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));)
    return r;
}

// Every thread of every block in the cluster: orders earlier shared-memory writes (and mbarrier
// inits) before any block of the cluster continues. Also keeps a block alive until its peers
// stop touching its shared memory when used at the end of a kernel. Not .aligned: callers may
// arrive from a branch one thread of the warp took (the producer thread's loop).
__device__ __forceinline__ void cluster_sync() {
    TP_SM90_CLUSTER(asm volatile("barrier.cluster.arrive.release;\n"
                                 "barrier.cluster.wait.acquire;" ::
                                     : "memory");)
}

// Arrives on the mbarrier at the same shared-memory offset as `bar`, in block `cta` of the
// cluster (cta may be this block). The default (.release.cta) form: what it signals is that
// the arriving warpgroup's wgmma reads of a slot are over, and wgmma.wait_group has already
// made them complete, so no memory needs ordering at cluster scope. The .release.cluster form
// put a MEMBAR in every consumer release (one per k-step, on the warp that issues the wgmma):
// on the H200 it held the cluster-of-2 GEMM variants at 0.30-0.55 ms (4096^3), 0.20-0.27 without.
__device__ __forceinline__ void mbar_arrive_cluster(unsigned long long* bar, unsigned cta) {
    TP_SM90_CLUSTER(unsigned local = tma_smem_addr(bar); unsigned remote = 0;
                    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(cta));
                    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");)
}

// Like tma_load_2d, but the box lands at offset `dst` of every block in `cta_mask` and each of
// them gets the complete-tx on its own mbarrier at offset `bar`. sm_90a only (ptxas advises
// against .multicast::cluster on plain sm_90).
__device__ __forceinline__ void tma_load_2d_multicast(void* dst, const TmaDesc* map, int c0, int c1, unsigned long long* bar,
                                                      unsigned short cta_mask) {
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(tma_smem_addr(dst)),
                 "l"(reinterpret_cast<unsigned long long>(map)), "r"(tma_smem_addr(bar)), "r"(c0), "r"(c1), "h"(cta_mask)
                 : "memory");
#else
    __trap();
#endif
}

// One poll of the mbarrier phase with parity `parity` (see mbar_wait): true once it completed.
__device__ __forceinline__ bool mbar_try_wait(unsigned long long* bar, unsigned parity) {
    unsigned done = 0;
    TP_SM90_CLUSTER(asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                                 " selp.u32 %0, 1, 0, p;\n}"
                                 : "=r"(done)
                                 : "r"(tma_smem_addr(bar)), "r"(parity)
                                 : "memory");)
    return done != 0;
}

// Named barrier `id` (1..15; 0 is __syncthreads) over `count` threads (a multiple of 32):
// lets one warpgroup synchronise without stopping the others. barrier.sync, not the .aligned
// bar.sync: one thread of the warp may come from its own branch (the TMA-store issuer).
__device__ __forceinline__ void named_barrier_sync(int id, int count) {
    TP_SM90_CLUSTER(asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(count) : "memory");)
}

// Arrives on named barrier `id` without waiting: the signalling half of a producer/consumer
// hand-off between warpgroups (the other side calls named_barrier_sync with the same count).
__device__ __forceinline__ void named_barrier_arrive(int id, int count) {
    TP_SM90_CLUSTER(asm volatile("barrier.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");)
}

// Waits until all but the PENDING most recently committed bulk stores have finished reading
// their shared-memory sources (those buffers may be rewritten; the global writes may still be
// in flight). PENDING = 0: every store.
template <int PENDING = 0>
__device__ __forceinline__ void tma_store_wait_read() {
    TP_SM90_CLUSTER(asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(PENDING) : "memory");)
}

}  // namespace tp

#undef TP_SM90_CLUSTER
