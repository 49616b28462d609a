# RUN: not %tilec run --device cpu %s 2>&1 | FileCheck %s
# The consumer role waits for the producer's first arrival, but comes first in program order:
# on the GPU the producer's warp group would still arrive; the interpreter, which runs roles in
# program order, refuses the wait at its line instead of hanging.
# CHECK: fail_barrier_wait_never_completes.py:[[@LINE+13]]:{{[0-9]+}}: error: wait on mbarrier `ready[0]` for parity 0 in block (0, 0, 0) cannot complete in program order: it has completed 0 phase(s) and holds 0 of the 128 arrivals that complete the next; the interpreter runs `T.ws` roles in program order, so the role that arrives must come before the one that waits [BarrierWaitNeverCompletes]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def swapped(N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=256) as bx:
            tile = T.alloc_shared((N,), "float32")
            ready = T.alloc_barrier(128)
            with T.ws(1):
                T.barrier_wait(ready, 0)
                T.copy(tile, B)
            with T.ws(0):
                T.copy(A, tile)
                T.barrier_arrive(ready)

    return main
