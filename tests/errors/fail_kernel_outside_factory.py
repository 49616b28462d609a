# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_kernel_outside_factory.py:9:10: error: `T.Kernel` used outside a kernel function [KernelOutsideFactory]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def k(N=128):
    with T.Kernel(1, threads=128) as bx:
        pass

    @T.prim_func
    def main(A: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=128) as bx:
            T.clear(A)

    return main
