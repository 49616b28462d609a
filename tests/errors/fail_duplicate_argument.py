# RUN: not %tilec compile %s --emit=cuda 2>&1 | FileCheck %s
# CHECK: fail_duplicate_argument.py:11:44: error: invalid syntax: duplicate argument `A` in function definition; the first is at line 11 [InvalidSyntax]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(N=128):
    # Two parameters of one name compiled before and failed only when run, without a line.
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(N):
                A[i] = 1.0

    return main
