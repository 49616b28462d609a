# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_missing_parameter.py:8:1: error: kernel `k` needs a value for `block_M`, `block_N`; pass `-D NAME=VALUE` [MissingParameter]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A, block_M, block_N, threads=128):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=threads) as bx:
        T.clear(A)
