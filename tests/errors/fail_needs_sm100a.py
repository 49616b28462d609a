# RUN: not %tilec compile %s --arch sm_90a --emit ptx 2>&1 | FileCheck %s
# Tensor memory exists only on Blackwell: a clear "needs sm_100a", not an unknown function.
# CHECK: fail_needs_sm100a.py:[[@LINE+8]]:{{[0-9]+}}: error: `T.alloc_tmem` needs sm_100a (Blackwell tensor memory and tcgen05), but the target is sm_90a [FeatureNeedsTarget]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128, 128), "float16"), C: T.Tensor((128, 128), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_shared((128, 128), "float16")
        C_tmem = T.alloc_tmem([128, 128], "float32")
        T.copy(A[0, 0], A_shared)
