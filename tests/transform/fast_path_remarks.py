# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda -o %t.cu 2>&1 | FileCheck %s --implicit-check-not="wgmma not used"
# RUN: FileCheck %s --check-prefix=CUDA < %t.cu
# RUN: %tilec compile %s --arch sm_80 --remarks --emit cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80 --allow-empty
# On sm_90a a kernel the warp-specialized GEMM template does not take says why at its
# T.Pipelined loop (here: user code between the copies and the gemm), and its T.gemm still
# lowers to wgmma through the general path: no wgmma remark. Other targets have no such fast
# path to refuse, so they say nothing.
# CHECK: fast_path_remarks.py:[[@LINE+18]]:{{[0-9]+}}: remark: warp specialization (a TMA producer and wgmma consumers) not used: the loop body is not exactly one T.copy of A, one of B and one T.gemm (a general warp-specialization pass is not built yet); the loop keeps cp.async stages [FastPathNotTaken]
# CUDA: tp::copy_g2s<128, 64, 256, half_t, true, true>(
# CUDA: tp::copy_g2s<64, 128, 256, half_t, 2, true>(
# CUDA: tp::gemm_wgmma_ss<128, 128, 64, 8, 1, false, false, half_t>(
# SM80-NOT: remark
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def decayed(M=512, N=512, K=512, block_M=128, block_N=128, block_K=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), "float16")
            B_s = T.alloc_shared((block_K, block_N), "float16")
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                for i, j in T.Parallel(block_M, block_N):
                    C_l[i, j] = C_l[i, j] * 0.5
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * block_M, bx * block_N])
    return main
