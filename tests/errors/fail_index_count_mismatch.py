# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_index_count_mismatch.py:12:15: error: buffer `A` has 2 dimension(s) but is indexed with 1 [IndexCountMismatch]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128, 128), T.float32)
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            A[i] = 0.0
