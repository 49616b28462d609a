# A GEMM that stages C through shared memory before storing it, as TileLang's own examples
# write their epilogues (tests/unit/test_hopper.cpp checks its sm_90a lowering: the consumers'
# barrier and one thread's TMA store of the tile; tests/gpu/test_gpu_hopper.cpp runs it).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def staged(M=1024, N=1024, K=1024, block_M=128, block_N=256, block_K=64, threads=256):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_shared = T.alloc_shared((block_M, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main
