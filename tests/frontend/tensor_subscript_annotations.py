# `T.Tensor[shape, dtype]`, the subscript spelling of a tensor annotation that 17 of TileLang's
# example files use, in a prim_func's parameters and in an eager factory's declarations: both
# read as `T.Tensor(shape, dtype)` (a list or a tuple shape). Before, the first was "builtin
# function is not subscriptable" and the second left A and B as missing parameters.
# RUN: %tilec compile %s -k staged --emit=ir -D N=512 | FileCheck %s --check-prefix=PRIM
# RUN: %tilec compile %s -k eager --emit=ir -D N=512 | FileCheck %s --check-prefix=EAGER
# PRIM: def staged(A: T.Tensor((512,), "float16"), B: T.Tensor((512,), "float16"), C: T.Tensor((512,), "float32")):
# EAGER: def eager(A: T.Tensor((512,), "float32"), B: T.Tensor((512,), "float32"), C: T.Tensor((512,), "float32")):
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def staged(N, block=128, dtype="float16"):
    @T.prim_func
    def main(A: T.Tensor[(N,), dtype], B: T.Tensor[[N], dtype], C: T.Tensor[(N,), "float32"]):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                C[bx * block + i] = A[bx * block + i] + B[bx * block + i]

    return main


@tilelang.jit
def eager(A, B, block=128, dtype=T.float32):
    N = T.const("N")
    A: T.Tensor[(N,), dtype]
    B: T.Tensor[[N], dtype]
    C = T.empty((N,), dtype)
    with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
        for i in T.Parallel(block):
            C[bx * block + i] = A[bx * block + i] * B[bx * block + i]
    return C
