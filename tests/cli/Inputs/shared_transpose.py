# A 32 x 32 float transpose through shared memory; PAD floats of padding per row (tests/cli/inspect_layout.test).
import tilelang.language as T


def transpose(PAD=0):
    @T.prim_func
    def main(A: T.Tensor((32, 32), "float32"), B: T.Tensor((32, 32), "float32")):
        with T.Kernel(1, threads=32) as bx:
            S = T.alloc_shared((32, 32 + PAD), "float32")
            for i, j in T.Parallel(32, 32):
                S[i, j] = A[i, j]
            for i, j in T.Parallel(32, 32):
                B[i, j] = S[j, i]

    return main
