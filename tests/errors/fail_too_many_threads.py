# RUN: not %tilec compile %s --emit cuda 2>&1 | FileCheck %s
# CHECK: fail_too_many_threads.py:[[@LINE+6]]:{{[0-9]+}}: error: 2048 threads per block exceeds the limit of 1024 [TooManyThreads]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((4096,), "float32")):
    with T.Kernel(2, threads=2048) as bx:
        for i in T.Parallel(2048):
            A[bx * 2048 + i] = 0.0
