# A tiled GEMM with either operand transposed, for the interpreter's unit tests
# (tests/unit/test_interp_dsl.cpp) and the JIT's (tests/jit/test_jit_constructs.cpp). C is in
# `out` (the input dtype when not given); ragged M, N, K go through T.copy's zero fill.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=64, block_N=64, block_K=32, trans_A=False, trans_B=False, dtype="float16", out=""):
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_tile = (block_K, block_M) if trans_A else (block_M, block_K)
    B_tile = (block_N, block_K) if trans_B else (block_K, block_N)
    out_dtype = out if out else dtype

    @T.prim_func
    def main(A: T.Tensor(A_shape, dtype), B: T.Tensor(B_shape, dtype), C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_s = T.alloc_shared(A_tile, dtype)
            B_s = T.alloc_shared(B_tile, dtype)
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                if trans_A:
                    T.copy(A[ko * block_K, by * block_M], A_s)
                else:
                    T.copy(A[by * block_M, ko * block_K], A_s)
                if trans_B:
                    T.copy(B[bx * block_N, ko * block_K], B_s)
                else:
                    T.copy(B[ko * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_l, transpose_A=trans_A, transpose_B=trans_B)
            T.copy(C_l, C[by * block_M, bx * block_N])

    return main
