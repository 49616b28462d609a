# The exact GELU on float32 for the GPU accuracy test (tests/gpu/test_gpu_math.cpp): inputs are
# standard normal, scaled by 2, so most x fall in [-6, 6] where tp::gelu_erf's polynomial works
# and some beyond. math-idioms turns column 0 into tp::gelu_erf; column 1 is plain T.erf (erff).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def gelu_erf(M=65536, block=256):
    @T.prim_func
    def main(A: T.Tensor((M,), "float32"), G: T.Tensor((M, 2), "float32")):
        with T.Kernel(T.ceildiv(M, block), threads=block) as bx:
            for i in T.Parallel(block):
                x = A[bx * block + i] * 2.0
                G[bx * block + i, 0] = 0.5 * x * (1.0 + T.erf(x * 0.7071067811865476))
                G[bx * block + i, 1] = T.erf(x * 0.7071067811865476)

    return main
