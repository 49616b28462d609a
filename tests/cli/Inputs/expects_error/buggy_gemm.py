# A kernel its file marks as buggy (the `# BUG` comment): B's tile has the wrong first dimension,
# which tilec refuses at the T.gemm.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def buggy_gemm(M, N, K):
    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16), C: T.Tensor((M, N), T.float32)):
        with T.Kernel(1, threads=128):
            A_s = T.alloc_shared((M, K), T.float16)
            B_s = T.alloc_shared((M, N), T.float16)  # BUG: should be (K, N)
            C_l = T.alloc_fragment((M, N), T.float32)
            T.copy(A, A_s)
            T.copy(B, B_s)
            T.gemm(A_s, B_s, C_l, clear_accum=True)
            T.copy(C_l, C)

    return main
