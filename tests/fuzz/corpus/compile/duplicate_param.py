import tilelang
import tilelang.language as T

@tilelang.jit
def k(N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(N):
                A[i] = 1.0
    return main
