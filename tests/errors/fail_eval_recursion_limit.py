# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_eval_recursion_limit.py:8:12: error: trace-time evaluation exceeded the recursion limit of 200 calls [EvalRecursionLimit]
import tilelang
import tilelang.language as T


def depth(n):
    return depth(n + 1)


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(depth(0), threads=128) as bx:
        T.clear(A)
