# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_type_mismatch.py:11:13: error: unsupported operand types for `+`: str and int [TypeMismatch]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        n = "8" + 1
