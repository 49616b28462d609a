# fma-gemm + stage-fragments: a float32 T.gemm whose A is in registers runs as multiply-add
# loops over C that read A[i, k] at every k, elements other threads hold, so stage-fragments
# copies A into a shared tile before the loop; it compiles for both targets.
# RUN: %tilec compile %s --emit lowered --print-after=stage-fragments 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK-LABEL: IR after stage-fragments
# CHECK: A_local_stage = T.alloc_shared((64, 32), "float32")
# CHECK: T.copy(A_local[0:64, 0:32], A_local_stage[0:64, 0:32])
# CHECK-NEXT: for tp_i, tp_j in T.Parallel(64, 64):
# CHECK: C_local[tp_i, tp_j] = C_local[tp_i, tp_j] + A_local_stage[tp_i, tp_k] * B_shared[tp_k, tp_j]
# CPU: (CPU {{interpreter|jit}}, 1 thread(s), 1 blocks)
#
# tileplay: kernel=main
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((64, 32), "float32"), B: T.Tensor((32, 64), "float32"), C: T.Tensor((64, 64), "float32")):
    with T.Kernel(1, threads=128) as bx:
        A_local = T.alloc_fragment((64, 32), "float32")
        B_shared = T.alloc_shared((32, 64), "float32")
        C_local = T.alloc_fragment((64, 64), "float32")
        T.copy(A[0, 0], A_local)
        T.copy(B[0, 0], B_shared)
        T.gemm(A_local, B_shared, C_local, clear_accum=True)
        T.copy(C_local, C[0, 0])
