# RUN: %tilec compile %s --arch sm_90a --emit cuda -o - -D M=256 -D N=256 -D K=512 | FileCheck %s
# A ring slot the consumers load into registers (A_s, read by a T.Parallel loop) is read
# through the generic proxy, and TMA refills it through the async proxy: its release fences
# every lane's reads first (tp::ring_release_generic). B_s is only a wgmma operand, read in the
# async proxy like TMA's writes, and keeps the plain release. The register A operand is packed
# by a statement of its own before the issue, so its group's wait precedes the next packing.
# CHECK: tp::ring_release_generic(&tp_mbar[(2 + tp_A_s_c_slot)]);
# CHECK: tp::frag_pack_operand<32, half_t>(&A_f[0], &tp_packed[0]);
# CHECK: tp::gemm_wgmma_rs_packed<
# CHECK: tp::wgmma_wait<0>()
# CHECK: tp::ring_release(&tp_mbar[(6 + tp_B_s_c_slot)]);
import tilelang
import tilelang.language as T

@tilelang.jit(out_idx=[-1])
def scaled_a(M, N, K, block_M=128, block_N=128, block_K=64, threads=256, stages=2):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), "float16")
            B_s = T.alloc_shared((block_N, block_K), "float16")
            A_f = T.alloc_fragment((block_M, block_K), "float16")
            acc = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=stages):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[bx * block_N, k * block_K], B_s)
                for i, j in T.Parallel(block_M, block_K):
                    A_f[i, j] = A_s[i, j] * T.cast(k % 3 + 1, "float16")
                T.gemm(A_f, B_s, acc, transpose_B=True)
            T.copy(acc, C[by * block_M, bx * block_N])

    return main
