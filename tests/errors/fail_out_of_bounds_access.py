# RUN: not %tilec run --device cpu %s 2>&1 | FileCheck %s
# The tile is 32 wide but the guard is missing: block 3 writes past the end of B (N=100).
# CHECK: fail_out_of_bounds_access.py:[[@LINE+11]]:{{[0-9]+}}: error: out-of-bounds write of `B` with shape [100] at index [100] in block (3, 0, 0); check the index math or guard the access with `if` [OutOfBoundsAccess]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(N=100, block=32):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=32) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] * 2.0
    return main
