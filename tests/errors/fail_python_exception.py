# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_python_exception.py:10:9: error: `raise` at trace time: ValueError: unsupported mode fast [PythonException]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A, mode="fast"):
    if mode != "exact":
        raise ValueError(f"unsupported mode {mode}")
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
