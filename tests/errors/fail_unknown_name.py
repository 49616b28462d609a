# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_unknown_name.py:12:29: error: name `blokc` is not defined [UnknownName]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A, block=64):
    N = T.const("N")
    A: T.Tensor((N,), T.float32)
    with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
        for i in T.Parallel(blokc):
            A[bx * block + i] = 0.0
