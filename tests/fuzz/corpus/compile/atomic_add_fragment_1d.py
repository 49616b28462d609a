import tilelang
import tilelang.language as T

@tilelang.jit
def k(M=128):
    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), B: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            t = T.alloc_fragment((M,), "float32")
            T.copy(A, t)
            T.atomic_add(B, t)
    return main
