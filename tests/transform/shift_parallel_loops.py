# shift-parallel-loops: a split store of an accumulator's halves (sparse MLA backward's
# `acc_half[bi, d] = acc[bi + s * 16, d]` under `if bi < 16`, s in 0..1) reads the fragment at
# its loop variables plus an offset of 0 to 16, which the guard keeps inside acc's 32 rows. The
# loop is renumbered so `acc` is read at the loop's own variable (`bi` now runs over acc's rows;
# the shared tile is written at `bi - s * 16`, for the rows of half s only), and
# stage-fragments leaves it thread-local: no `acc_stage` copy of the whole accumulator in
# shared memory. The CPU run (the traced IR, not renumbered) and the two halves written back
# must match the reference.
# RUN: %tilec compile %s --emit lowered --print-after=shift-parallel-loops 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit lowered --print-after=stage-fragments 2>&1 | FileCheck --check-prefix=STAGE %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK-LABEL: IR after shift-parallel-loops
# CHECK: for s in T.serial(2):
# CHECK-NEXT: for bi, d in T.Parallel(32, 64):
# CHECK-NEXT: if bi - s * 16 >= 0 and bi - s * 16 < 16:
# CHECK-NEXT: acc_half[bi - s * 16, d] = acc[bi, d]
# STAGE-LABEL: IR after stage-fragments
# STAGE-NOT: acc_stage
# CPU: output Out: float32[64, 64] [[STATS:.*]]
# CPU: output Ref: float32[64, 64] [[STATS]]
#
# tileplay: kernel=split_store
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def split_store(M=64, D=64, BS=32):
    @T.prim_func
    def main(A: T.Tensor((M, D), T.float32), B: T.Tensor((D, D), T.float32), Out: T.Tensor((M, D), T.float32), Ref: T.Tensor((M, D), T.float32)):
        with T.Kernel(M // BS, threads=128) as bx:
            a_s = T.alloc_shared((BS, D), T.float32)
            b_s = T.alloc_shared((D, D), T.float32)
            acc = T.alloc_fragment((BS, D), T.float32)
            acc_half = T.alloc_shared((BS // 2, D), T.float32)
            T.copy(A[bx * BS, 0], a_s)
            T.copy(B, b_s)
            T.gemm(a_s, b_s, acc, clear_accum=True)
            T.copy(acc, Ref[bx * BS, 0])
            for s in range(2):
                for bi, d in T.Parallel(BS, D):
                    if bi < BS // 2:
                        acc_half[bi, d] = acc[bi + s * (BS // 2), d]
                for bi, d in T.Parallel(BS // 2, D):
                    Out[bx * BS + s * (BS // 2) + bi, d] = acc_half[bi, d]

    return main
