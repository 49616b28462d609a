# RUN: not %tilec compile %s --arch sm_70 --emit ir 2>&1 | FileCheck %s
# CHECK: error: unknown target `sm_70`; supported targets: sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a [UnsupportedTarget]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            A[i] = 0.0
