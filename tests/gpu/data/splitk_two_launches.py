# A split-K GEMM in two launches: partial products per split, then a combine that reads them.
# Shared by tests/unit/test_launches.cpp and tests/gpu/test_gpu_launches.cpp.
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-2, -1])
def splitk_gemm(M=128, N=64, K=256, splits=4, block_M=64, block_N=64, block_K=32):
    k_split = K // splits

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             P: T.Tensor((splits, M, N), "float32"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), splits, threads=128) as (bx, by, bz):
            A_s = T.alloc_shared((block_M, block_K), "float16")
            B_s = T.alloc_shared((block_K, block_N), "float16")
            acc = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(acc)
            for k in T.Pipelined(k_split // block_K, num_stages=2):
                T.copy(A[by * block_M, bz * k_split + k * block_K], A_s)
                T.copy(B[bz * k_split + k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, acc)
            T.copy(acc, P[bz, by * block_M, bx * block_N])
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=64) as (bx, by):
            total = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(total)
            for s in T.serial(splits):
                for i, j in T.Parallel(block_M, block_N):
                    total[i, j] += P[s, by * block_M + i, bx * block_N + j]
            T.copy(total, C[by * block_M, bx * block_N])

    return main
