# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_unsupported_construct.py:13:17: error: `continue` is not supported inside a kernel loop body; wrap the rest of the body in an `if` [UnsupportedConstruct]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        for i in T.serial(4):
            if A[i] > 0:
                continue
            A[i] = 1.0
