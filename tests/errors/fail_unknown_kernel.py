# RUN: not %tilec compile %s --emit=ir -k matmull 2>&1 | FileCheck %s
# CHECK: fail_unknown_kernel.py: error: no kernel named `matmull`; kernels in this file: `matmul` [UnknownKernel]
import tilelang
import tilelang.language as T


@tilelang.jit
def matmul(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
