# RUN: not %tilec run --device cpu --check-races %s 2>&1 | FileCheck %s
# The mbarrier expects 256 arrivals per phase but the block has 128 threads: its first phase can
# never complete, so a wait for it would hang. The checker reports it at the last arrive.
# CHECK: fail_barrier_phase_incomplete.py:[[@LINE+13]]:{{[0-9]+}}: error: mbarrier `done[0]` in block (0, 0, 0) ends the kernel with 128 of the 256 arrivals its phase needs: that phase can never complete, so a wait for it would hang; the arrive count of `T.alloc_barrier` must match the threads that arrive [BarrierPhaseIncomplete]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def short_count(N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            tile = T.alloc_shared((N,), "float32")
            done = T.alloc_barrier(256)
            T.copy(A, tile)
            T.mbarrier_arrive(done)
            T.copy(tile, B)

    return main
