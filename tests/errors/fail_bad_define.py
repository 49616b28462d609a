# RUN: not %tilec compile %s -D block_N 2>&1 | FileCheck %s
# CHECK: tilec: error: cannot parse `-D block_N`; expected NAME=VALUE [BadDefine]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            A[i] = 0.0
