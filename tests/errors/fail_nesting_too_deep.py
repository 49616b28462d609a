# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_nesting_too_deep.py:12:12: error: repr of containers nested deeper than 1000 levels; Python would raise RecursionError here [NestingTooDeep]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    z = []
    for _ in range(100000):
        z = [z]
    text = str(z)
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
