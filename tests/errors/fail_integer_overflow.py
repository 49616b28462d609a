# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_integer_overflow.py:9:13: error: integer overflow in trace-time `*`; Python values are limited to 64 bits here [IntegerOverflow]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A, n=4611686018427387904):
    total = n * 4
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
