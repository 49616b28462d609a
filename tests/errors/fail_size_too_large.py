# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_size_too_large.py:11:{{[0-9]+}}: error: the result of `*` is too large: 1 x 10000000000 items; trace-time lists, tuples and strings hold at most 10000000 items [SizeTooLarge]
# RUN: not %tilec compile %s --emit=ir -D big=1 2>&1 | FileCheck %s --check-prefix=SHAPE
# SHAPE: fail_size_too_large.py:13:{{[0-9]+}}: error: a tensor of shape 1099511627776 x 1099511627776 is too large: its element count overflows 64-bit byte counts [SizeTooLarge]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A, big=0):
    zeros = [0] * 10**10 if not big else []
    n = 1 << 40
    A: T.Tensor((n, n) if big else (128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
