# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_not_constant.py:11:28: error: `T.alloc_shared(shape)` must be known at trace time; it depends on a kernel runtime value [NotConstant]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(4, threads=128) as bx:
        s = T.alloc_shared((bx,), T.float32)
