# TileLang's explicit synchronisation API staged into Tile IR: T.alloc_barrier keeps each
# mbarrier's arrive count (an int or a list), `with T.ws(i)` becomes a role of warp group i
# (T.ws(1, 0) the two groups, sorted), T.barrier_wait / T.barrier_arrive are the
# mbarrier_wait_parity / mbarrier_arrive ops, T.tma_copy a copy tracked on its barrier, and
# T.fence_proxy_async a call. Misuse is refused at its line.
# RUN: %tilec compile %s --emit ir | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: not %tilec compile %s --emit ir -D index=3 2>&1 | FileCheck --check-prefix=INDEX %s
# RUN: not %tilec compile %s --emit ir -D unbarriered=True 2>&1 | FileCheck --check-prefix=NOBAR %s
# RUN: not %tilec compile %s --emit ir -D skip=True 2>&1 | FileCheck --check-prefix=SKIP %s
# RUN: not %tilec compile %s --emit ir -D not_a_barrier=True 2>&1 | FileCheck --check-prefix=NOTBAR %s
# CHECK: ready = T.alloc_barrier([128])
# CHECK-NEXT: pair = T.alloc_barrier([256, 64])
# CHECK: with T.ws(0):
# CHECK-NEXT: T.tma_copy(A[0:128], tile[0:128], barrier=ready[0])
# CHECK-NEXT: T.mbarrier_arrive(ready[0])
# CHECK-NEXT: T.evaluate(T.fence_proxy_async())
# CHECK: with T.ws(1):
# CHECK-NEXT: T.mbarrier_wait_parity(ready[0], 0)
# CHECK: with T.ws(0, 1):
# CHECK-NEXT: T.mbarrier_arrive(pair[1])
# CHECK-NEXT: T.mbarrier_expect_tx(pair[0], 512)
# CPU: output B: float32[128]
# INDEX: warp_group_roles.py:[[@LINE+28]]:{{[0-9]+}}: error: mbarrier index 3 is outside `pair`, which holds 2 [TypeMismatch]
# NOBAR: warp_group_roles.py:[[@LINE+19]]:{{[0-9]+}}: error: `T.tma_copy` from global memory needs `barrier=`: the mbarrier its bytes complete on [TypeMismatch]
# SKIP: warp_group_roles.py:[[@LINE+29]]:{{[0-9]+}}: error: `T.ws` takes neighbouring warp groups only; the block's 384 threads form 3 warp group(s) of 128 [BadWarpGroup]
# NOTBAR: warp_group_roles.py:[[@LINE+31]]:{{[0-9]+}}: error: `T.barrier_arrive` expects an mbarrier from `T.alloc_barrier` (`bars` or `bars[i]`), got shared buffer [TypeMismatch]
#
# tileplay: kernel=roles
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def roles(N=128, index=1, unbarriered=False, skip=False, not_a_barrier=False):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=384) as bx:
            tile = T.alloc_shared((N,), "float32")
            ready = T.alloc_barrier(arrive_count=128)
            pair = T.alloc_barrier([256, 64])
            with T.ws(0):
                if unbarriered:
                    T.tma_copy(A, tile)
                T.tma_copy(A, tile, barrier=ready)
                T.barrier_arrive(ready)
                T.fence_proxy_async()
            with T.ws(1):
                T.barrier_wait(ready, 0)
                T.copy(tile, B)
            with T.ws(1, 0):
                T.mbarrier_arrive(mbarrier=pair[index])
                T.mbarrier_expect_tx(pair[0], N * 4)
            if skip:
                with T.ws(0, 2):
                    T.copy(tile, B)
            if not_a_barrier:
                T.barrier_arrive(tile)

    return main
