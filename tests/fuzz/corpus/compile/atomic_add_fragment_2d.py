import tilelang
import tilelang.language as T

@tilelang.jit
def k(M=64, N=64):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            t = T.alloc_fragment((M, N), "float32")
            T.copy(A, t)
            T.atomic_add(B, t)
    return main
