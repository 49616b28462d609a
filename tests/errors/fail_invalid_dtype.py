# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_invalid_dtype.py:9:25: error: unknown dtype `flaot16`; did you mean `float16` [InvalidDType]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), "flaot16")
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
