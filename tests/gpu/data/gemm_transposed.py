# A GEMM with either operand stored transposed: A as K x M (transpose_A), B as N x K
# (transpose_B, the "A @ B.T" of a linear layer). On sm_90a wgmma reads the MN-major tiles
# through its descriptors and TMA loads them as stored; on older targets ldmatrix.trans does.
# The benchmark of issue 27's transposed GEMMs at 4096^3 (pass the peer that matches the
# flags, e.g. --baseline "torch: A.T @ B.T" with -D trans_A=True).
#
# tileplay: kernel=matmul
# tileplay: args M=4096 N=4096 K=4096
# tileplay: cpu-args M=256 N=256 K=256
# tileplay: flops 2*M*N*K
# tileplay: bytes 2*(M*K + K*N + M*N)
# tileplay: baseline torch: A @ B.T
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, trans_A=False, trans_B=True, block_M=128, block_N=256, block_K=64, num_stages=4, threads=256, dtype="float16"):
    a_shape = (K, M) if trans_A else (M, K)
    b_shape = (N, K) if trans_B else (K, N)
    a_tile = (block_K, block_M) if trans_A else (block_M, block_K)
    b_tile = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def main(A: T.Tensor(a_shape, dtype), B: T.Tensor(b_shape, dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(a_tile, dtype)
            B_shared = T.alloc_shared(b_tile, dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.use_swizzle(10)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], A_shared)
                else:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_A=trans_A, transpose_B=trans_B)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
