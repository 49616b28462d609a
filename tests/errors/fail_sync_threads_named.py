# RUN: not %tilec compile %s --emit cuda 2>&1 | FileCheck %s
# T.sync_threads over part of the block (a named barrier) would deadlock as a __syncthreads, so
# it is refused at its argument rather than lowered as a whole-block barrier.
# CHECK: fail_sync_threads_named.py:[[@LINE+9]]:{{[0-9]+}}: error: `T.sync_threads with a named barrier (barrier_id, arrive_count)` is not supported by the CUDA code generator yet [NotYetLowered]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32"), B: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            B[i] = A[i]
        T.sync_threads(barrier_id=1, arrive_count=64)
