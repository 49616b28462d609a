# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_wrong_arg_count.py:14:19: error: `tile` takes 1 argument(s), got 2 [WrongArgCount]
import tilelang
import tilelang.language as T


def tile(n):
    return n * 2


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(tile(1, 2), threads=128) as bx:
        T.clear(A)
