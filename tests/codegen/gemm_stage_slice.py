# T.gemm on one stage of a staged shared buffer (`A_s[k % 2, :, :]`, as kernels that keep
# their own rings write it): the operand is that stage's 2-D tile, so mma.sync reads it from
# the stage's first element, on sm_80 and on sm_90a (where wgmma takes whole tiles only). A
# slice of rows (`B_s[k % 2, 0:16, :]`) is not lowered yet (column slices are:
# gemm_column_slice.py).
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: not %tilec compile %s --emit cuda --arch sm_80 -D partial=True 2>&1 | FileCheck --check-prefix=PART %s
# CHECK: tp::gemm_ss<64, 64, 32, {{.*}}>(&A_s[(((k % 2) * 64) * 32)], &B_s[(((k % 2) * 32) * 64)], &C_l[0]);
# PART: gemm_stage_slice.py:[[@LINE+20]]:{{[0-9]+}}: error: `T.gemm on parts of buffers other than whole rows and a column range starting at a multiple of 8` is not supported by the CUDA code generator yet [NotYetLowered]
#
# tileplay: kernel=staged_gemm
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def staged_gemm(M=64, N=64, K=128, partial=False):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((2, 64, 32), "float16")
            B_s = T.alloc_shared((2, 32, 64), "float16")
            C_l = T.alloc_fragment((64, 64), "float32")
            T.clear(C_l)
            for k in T.serial(K // 32):
                T.copy(A[0, k * 32], A_s[k % 2, :, :])
                T.copy(B[k * 32, 0], B_s[k % 2, :, :])
                if partial:
                    T.gemm(A_s[k % 2, :, 0:16], B_s[k % 2, 0:16, :], C_l)
                else:
                    T.gemm(A_s[k % 2, :, :], B_s[k % 2, :, :], C_l)
            T.copy(C_l, C)

    return main
