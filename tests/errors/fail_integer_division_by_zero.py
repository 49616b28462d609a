# RUN: not %tilec run --device cpu %s 2>&1 | FileCheck %s
# Random int inputs lie in [-4, 4], so some element of A is 0.
# CHECK: fail_integer_division_by_zero.py:[[@LINE+11]]:{{[0-9]+}}: error: integer division by zero in block (0, 0, 0); guard the divisor [IntegerDivisionByZero]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def divide(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "int32"), B: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(N):
                B[i] = 7 // A[i]
    return main
