# RUN: not %tilec compile %s --emit cuda 2>&1 | FileCheck %s
# A fragment's registers are filled whole; T.fill of part of one (the first half of its rows)
# has no per-thread lowering here and is reported at its line.
# CHECK: fail_not_yet_lowered.py:[[@LINE+9]]:{{[0-9]+}}: error: `T.fill of part of a fragment` is not supported by the CUDA code generator yet [NotYetLowered]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        C_local = T.alloc_fragment((64, 64), "float32")
        T.copy(A[0, 0], C_local)
        T.fill(C_local[0:32, 0:64], 0)
        T.copy(C_local, C[0, 0])
