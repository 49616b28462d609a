# A kernel whose factory has no schedule parameter: its tile and thread count are fixed, so
# `tilec tune` and `tilec sweep` have nothing to vary unless told.
# tileplay: kernel=scale
# tileplay: args N=1024
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(N, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
            for i in T.Parallel(128):
                if bx * 128 + i < N:
                    C[bx * 128 + i] = A[bx * 128 + i] * 2.0
    return main
