# bf16 GEMM with both operands transposed and edge tiles (M, N, K not multiples of the block):
# ldmatrix.trans for A, plain ldmatrix for B, zero-filled partial cp.async chunks, 8 warps.
# RUN: %tilec compile %s --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 | FileCheck %s --check-prefix=PTX
# CHECK: tp::copy_g2s<32, 128, 256, bfloat16_t, true>(&A_shared[
# CHECK: tp::copy_g2s<128, 32, 256, bfloat16_t, true>(&B_shared[
# CHECK: tp::gemm_ss<128, 128, 32, 2, 4, true, true, bfloat16_t, true>
# CHECK: tp::frag_store_global<tp::AccLayout<128, 128, 2, 4>>(&C_local[0], &C[(((by * 128) * 200) + (bx * 128))], 200, (300 - (by * 128)), (200 - (bx * 128)), tx);
# PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul_tt(M=300, N=200, K=72, block_M=128, block_N=128, block_K=32, dtype="bfloat16"):
    @T.prim_func
    def main(A: T.Tensor((K, M), dtype), B: T.Tensor((N, K), dtype), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_shared = T.alloc_shared((block_K, block_M), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[k * block_K, by * block_M], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_A=True, transpose_B=True)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
