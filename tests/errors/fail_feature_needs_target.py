# RUN: not %tilec compile %s --arch sm_75 --emit cuda 2>&1 | FileCheck %s
# Turing has no bfloat16 Tensor-Core instruction.
# CHECK: fail_feature_needs_target.py:[[@LINE+12]]:{{[0-9]+}}: error: `T.gemm` on bfloat16 needs sm_80, but the target is sm_75 [FeatureNeedsTarget]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 32), "bfloat16"), B: T.Tensor((32, 64), "bfloat16"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_shared((64, 32), "bfloat16")
        B_shared = T.alloc_shared((32, 64), "bfloat16")
        C_local = T.alloc_fragment((64, 64), "float32")
        T.copy(A[0, 0], A_shared)
        T.copy(B[0, 0], B_shared)
        T.gemm(A_shared, B_shared, C_local, clear_accum=True)
        T.copy(C_local, C[0, 0])
