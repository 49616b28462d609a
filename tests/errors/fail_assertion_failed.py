# RUN: not %tilec compile %s --emit=ir -D block=48 2>&1 | FileCheck %s
# CHECK: fail_assertion_failed.py:9:12: error: trace-time assertion failed: block=48 must divide 128 [AssertionFailed]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A, block=64):
    assert 128 % block == 0, f"block={block} must divide 128"
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
