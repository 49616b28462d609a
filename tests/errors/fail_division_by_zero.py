# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_division_by_zero.py:9:12: error: division by zero in trace-time expression [DivisionByZero]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A, split=0):
    tile = 128 // split
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
