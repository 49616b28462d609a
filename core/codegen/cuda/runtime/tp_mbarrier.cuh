// mbarriers of T.alloc_barrier on every target that has them (sm_80 on): init, the proxy
// fence after it, arrive and the parity wait (no transaction counts: see ops/barrier.h). tp_tma.cuh's mbar_* are the Hopper forms the automatic TMA
// pipeline uses; these use the `.shared.b64` forms and mbarrier.test_wait.parity, which sm_80 already has, so a kernel that synchronises its own
// roles runs on Ampere too. NVRTC-safe: no standard library headers. Below sm_80 the bodies trap (the code generator refuses mbarriers there first).
#pragma once

namespace tp {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TP_MBAR_SM80(...) __VA_ARGS__
#else
#define TP_MBAR_SM80(...) __trap();
#endif

__device__ __forceinline__ unsigned mbar_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// One thread initialises every barrier; the block synchronises after (the code generator
// emits both), so no thread arrives on an uninitialised word.
__device__ __forceinline__ void user_mbar_init(unsigned long long* bar, unsigned count) {
    TP_MBAR_SM80(asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(mbar_addr(bar)), "r"(count) : "memory");)
}
// The async proxy (TMA) completes on barriers only from sm_90, where their init must be
// made visible to it; before that there is nothing to order.
__device__ __forceinline__ void user_mbar_fence_init() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
#endif
}
__device__ __forceinline__ void user_mbar_arrive(unsigned long long* bar) {
    TP_MBAR_SM80(unsigned long long state; asm volatile("mbarrier.arrive.shared.b64 %0, [%1];"
                                                        : "=l"(state)
                                                        : "r"(mbar_addr(bar))
                                                        : "memory");
                 (void)state;)
}
// Until the phase of parity `parity` has completed (a fresh barrier is in phase 0, so parity 1
// passes at once). test_wait does not suspend the thread; the loop polls.
__device__ __forceinline__ void user_mbar_wait(unsigned long long* bar, unsigned parity) {
    TP_MBAR_SM80(unsigned addr = mbar_addr(bar); unsigned done = 0; do {
        asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(addr), "r"(parity)
                     : "memory");
    } while (!done);)
}
// T.fence_proxy_async: orders generic shared-memory writes before async-proxy reads (sm_90);
// earlier targets have no async proxy, so there is nothing to order.
__device__ __forceinline__ void user_fence_proxy_async() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

}  // namespace tp

#undef TP_MBAR_SM80
