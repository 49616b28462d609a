# A factory whose @T.prim_func is made further down: by an inner helper (the
# `kernel_func(block_M, ...)` pattern of TileLang's block-sparse attention examples) or by
# another factory whose kernel it returns. The kernel it returns is the one staged.
# RUN: %tilec compile %s -k outer --emit=ir | FileCheck %s
# CHECK: with T.Kernel(4, threads=128) as bx:
# RUN: %tilec compile %s -k forwarding --emit=ir | FileCheck %s --check-prefix=FWD
# FWD: with T.Kernel(2, threads=128) as bx:
# RUN: %tilec run %s -k forwarding --device cpu | FileCheck %s --check-prefix=CPU
# CPU: output B: float32[256]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def outer(N=512):
    def kernel_func(block):
        @T.prim_func
        def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
            with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
                for i in T.Parallel(block):
                    B[bx * block + i] = A[bx * block + i] * 2.0

        return main

    return kernel_func(128)


@tilelang.jit(out_idx=[1])
def forwarding(N=256):
    return outer(N)
