# A Hopper GEMM whose epilogue reads a row vector, a column vector and a 2-D tensor, for the GPU
# test of fragment epilogues on the sm_90a producer/consumer path (tests/gpu/test_gpu_hopper.cpp):
# two consumer warpgroups of 64 x 256 each, 32 x 8 tiles of 128 x 256.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def epilogue_vectors(M=4096, N=2048, K=256, block_M=128, block_N=256, block_K=64, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        scale: T.Tensor((M,), dtype),
        bias: T.Tensor((N,), dtype),
        D: T.Tensor((M, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=4):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = (C_local[i, j] * T.cast(scale[by * block_M + i], accum_dtype) + T.cast(bias[bx * block_N + j], accum_dtype)
                                 + T.cast(D[by * block_M + i, bx * block_N + j], accum_dtype))
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
