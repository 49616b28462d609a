# RUN: not %tilec compile %s --emit cuda 2>&1 | FileCheck %s
# Tensor Cores here take 16-bit operands; a float32 T.gemm whose A is in registers (so the
# multiply-add fallback, which reads A from any thread, cannot take it) is reported at its line.
# CHECK: fail_not_yet_lowered.py:[[@LINE+12]]:{{[0-9]+}}: error: `T.gemm on float32 x float32 -> float32` is not supported by the CUDA code generator yet [NotYetLowered]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 32), "float32"), B: T.Tensor((32, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_shared = T.alloc_fragment((64, 32), "float32")
        B_shared = T.alloc_shared((32, 64), "float32")
        C_local = T.alloc_fragment((64, 64), "float32")
        T.copy(A[0, 0], A_shared)
        T.copy(B[0, 0], B_shared)
        T.gemm(A_shared, B_shared, C_local, clear_accum=True)
        T.copy(C_local, C[0, 0])
