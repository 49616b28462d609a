# T.wgmma_gemm / T.wait_wgmma, TileLang's explicit asynchronous Hopper gemm: the same gemm op as
# T.gemm, so sm_90a issues wgmma (whose waits the wgmma-waits pass places before the first use
# of each group's operands, which also honours every T.wait_wgmma) and sm_80 runs mma.sync with
# a remark that the gemms finish at issue. `clear_accum=(k == 0)` on a kernel loop variable
# zeroes the accumulator where it holds. The CPU run checks C = A @ B over all K tiles.
# RUN: %tilec compile %s --emit cuda --arch sm_90a --no-lineinfo | FileCheck %s --check-prefix=HOPPER
# HOPPER: for (int k = 0; k < 4; ++k) {
# HOPPER: if ((k == 0)) {
# HOPPER: tp::gemm_wgmma_ss<
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo --remarks 2>&1 | FileCheck %s --check-prefix=AMPERE
# AMPERE: wgmma_gemm.py:35:17: remark: wgmma not used: `T.wgmma_gemm` on sm_80, which has no wgmma; it runs as `T.gemm` on mma.sync, finished at issue, so its `T.wait_wgmma` waits for nothing [FastPathNotTaken]
# AMPERE: tp::gemm_ss<
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: rm -rf %t && %tilec run %s --device cpu --save-inputs %t --save-outputs %t
# RUN: python3 %S/Inputs/npy_matmul.py %t/A.npy %t/B.npy %t/C.npy
#
# tileplay: kernel=async_gemm
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def async_gemm(M=64, N=64, K=128, block_K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, block_K), "float16")
            B_s = T.alloc_shared((block_K, N), "float16")
            C_l = T.alloc_fragment((M, N), "float32")
            T.fill(C_l, 1.0)
            for k in T.serial(K // block_K):
                T.copy(A[0, k * block_K], A_s)
                T.copy(B[k * block_K, 0], B_s)
                T.wgmma_gemm(A_s, B_s, C_l, clear_accum=(k == 0))
                T.wait_wgmma(0)
            T.copy(C_l, C)

    return main
