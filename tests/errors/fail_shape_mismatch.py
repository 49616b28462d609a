# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_shape_mismatch.py:14:9: error: shape mismatch: `T.gemm` with A [128, 32], B [64, 128] and C [128, 128]; expected A [M, K], B [K, N], C [M, N] [ShapeMismatch]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128, 64), T.float16)
    with T.Kernel(1, threads=128) as bx:
        a = T.alloc_shared((128, 32), T.float16)
        b = T.alloc_shared((64, 128), T.float16)
        c = T.alloc_fragment((128, 128), T.float32)
        T.gemm(a, b, c)
