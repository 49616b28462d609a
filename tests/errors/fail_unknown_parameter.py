# RUN: not %tilec compile %s --emit=ir -D blockM=64 2>&1 | FileCheck %s
# CHECK: fail_unknown_parameter.py:8:1: error: kernel `k` has no parameter `blockM`; its parameters are: `block_M` [UnknownParameter]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A, block_M=64):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
