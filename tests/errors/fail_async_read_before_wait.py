# RUN: not %tilec run --device cpu --check-races %s 2>&1 | FileCheck %s
# The block reads the tile a TMA load fills before it waits on the load's mbarrier: on the GPU
# the copy may still be in flight. The interpreter completes the copy at once, so only the
# checker can tell; it reports the read with the copy's line and the mbarrier.
# CHECK: fail_async_read_before_wait.py:[[@LINE+15]]:{{[0-9]+}}: error: a tile op's thread reads shared `tile` element [0] in block (0, 0, 0) while the asynchronous `T.tma_copy` at {{.*}}fail_async_read_before_wait.py:[[@LINE+13]]:{{[0-9]+}} that writes it may still be in flight: no wait on mbarrier `ready[0]` has passed since it was issued; wait for its phase with `T.mbarrier_wait_parity` first{{.*}} [AsyncReadBeforeWait]
# CHECK: fail_async_read_before_wait.py:[[@LINE+12]]:{{[0-9]+}}: note: the asynchronous copy into `tile` was issued here
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def early_read(N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            tile = T.alloc_shared((N,), "float32")
            ready = T.alloc_barrier(128)
            T.tma_copy(A, tile, barrier=ready)
            T.mbarrier_arrive(ready)
            T.copy(tile, B)
            T.mbarrier_wait_parity(ready, 0)

    return main
