# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda -o /dev/null 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_90a --emit cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
# A fast path refused is said at the line that refused it (with --remarks), and the kernel
# still compiles: here a 48-row accumulator is no whole 64-row block of a wgmma warpgroup, so
# this T.gemm runs on mma.sync.
# CHECK: remark_fast_path_not_taken.py:[[@LINE+13]]:{{[0-9]+}}: remark: wgmma not used: each warpgroup multiplies blocks of 64 rows; block M is 48; this T.gemm runs on mma.sync [FastPathNotTaken]
# QUIET-NOT: remark
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((48, 64), "float16"), B: T.Tensor((64, 64), "float16"), C: T.Tensor((48, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_shared((48, 64), "float16")
        B_shared = T.alloc_shared((64, 64), "float16")
        C_local = T.alloc_fragment((48, 64), "float32")
        T.copy(A[0, 0], A_shared)
        T.copy(B[0, 0], B_shared)
        T.gemm(A_shared, B_shared, C_local, clear_accum=True)
        T.copy(C_local, C[0, 0])
