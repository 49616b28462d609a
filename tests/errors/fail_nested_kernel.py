# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_nested_kernel.py:11:14: error: `T.Kernel` cannot be nested inside another `T.Kernel` [NestedKernel]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        with T.Kernel(2, threads=64) as by:
            T.clear(A)
