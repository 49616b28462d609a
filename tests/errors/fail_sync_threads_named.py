# RUN: not %tilec compile %s --emit cuda 2>&1 | FileCheck %s
# A named barrier's id must leave the block barriers of the generated code alone: barrier 0 is
# __syncthreads and 1 the tile threads' barrier of warp-specialized kernels.
# CHECK: fail_sync_threads_named.py:[[@LINE+9]]:{{[0-9]+}}: error: `T.sync_threads` barrier_id must be a constant in 2..15 (0 and 1 are the block barriers of the generated code) [TypeMismatch]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32"), B: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            B[i] = A[i]
        T.sync_threads(barrier_id=1, arrive_count=64)
