# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_unknown_attribute.py:13:32: error: `T.GemmWarpPolicy` has no attribute `FullRows`; did you mean `FullRow` [UnknownAttribute]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128, 128), T.float16)
    with T.Kernel(1, threads=128) as bx:
        s = T.alloc_shared((128, 128), T.float16)
        c = T.alloc_fragment((128, 128), T.float32)
        T.gemm(s, s, c, policy=T.GemmWarpPolicy.FullRows)
