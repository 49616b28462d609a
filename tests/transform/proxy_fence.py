# RUN: %tilec compile %s --arch sm_90a --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --arch sm_90a -D staged=True --emit cuda --no-lineinfo | FileCheck %s --check-prefix=STAGED
# RUN: %tilec compile %s --arch sm_90a --pass-config tl.disable_warp_specialized=true --emit cuda --no-lineinfo | FileCheck %s --check-prefix=CPASYNC
# A wgmma issue fences its shared operands' generic-proxy writes (fence.proxy.async) unless only
# TMA writes them: producer_consumer clears the fence when both tiles are its rings, keeps it
# when the threads write one (B staged through a fragment), and cp.async tiles keep it.
# CHECK: tp::gemm_wgmma_ss<128, 128, 64, 8, 1, false, false, half_t>(&A_s[{{.*}}], &B_s[{{.*}}], &C_l[0], tx, false);
# STAGED: tp::gemm_wgmma_ss<128, 128, 64, 8, 1, false, false, half_t>(&A_s[{{.*}}], &B_s[0], &C_l[0], tx, true);
# CPASYNC: tp::gemm_wgmma_ss<128, 128, 64, 8, 1, false, false, half_t>(&A_s[{{.*}}], &B_s[{{.*}}], &C_l[0], tx, true);
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=256, N=256, K=256, staged=False):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(N // 128, M // 128, threads=256) as (bx, by):
            A_s = T.alloc_shared((128, 64), "float16")
            B_s = T.alloc_shared((64, 128), "float16")
            B_f = T.alloc_fragment((64, 128), "float16")
            C_l = T.alloc_fragment((128, 128), "float32")
            T.clear(C_l)
            for k in T.Pipelined(K // 64, num_stages=2):
                T.copy(A[by * 128, k * 64], A_s)
                if staged:
                    T.copy(B[k * 64, bx * 128], B_f)
                    T.copy(B_f, B_s)
                else:
                    T.copy(B[k * 64, bx * 128], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * 128, bx * 128])
    return main
