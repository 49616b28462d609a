# Lesson 2: a tiled GEMM whose K loop loads the tiles but never multiplies them.
#
# Each block owns one block_M x block_N tile of C and walks K in slices of block_K, but the
# multiply is missing, so the accumulator stays zero.
#
# Per slice `k` the block copies a block_M x block_K tile of A and a block_K x block_N tile
# of B from global into shared memory, where all of its threads can read them. `T.gemm` then
# multiplies the two shared tiles and adds the product into `C_local`, an fp32 fragment held
# in the threads' registers; after the last slice one `T.copy` writes the finished tile to C
# (in fp16). Summing the partial products of all slices is what makes the result A @ B.
#
# tileplay: lesson Tiled GEMM: multiply in the K loop
# tileplay: hint After both copies of slice `k`, A_shared and B_shared hold matching slices of A and B: one tile op multiplies them.
# tileplay: hint `T.gemm(A_shared, B_shared, C_local)` computes A_shared @ B_shared and adds it to C_local; it belongs inside the loop, after the copies.
# tileplay: kernel=matmul
# tileplay: args M=4096 N=4096 K=4096
# tileplay: cpu-args M=128 N=128 K=128
# tileplay: flops 2*M*N*K
# tileplay: bytes 2*(M*K + K*N + M*N)
# tileplay: baseline torch: A @ B
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=64, block_N=64, block_K=32, threads=128, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            for k in T.serial(T.ceildiv(K, block_K)):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                # TODO(lesson): add A_shared @ B_shared into the accumulator C_local

            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
