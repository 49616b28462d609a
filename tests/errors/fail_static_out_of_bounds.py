# RUN: not %tilec compile %s --arch sm_80 -o %t.cu 2>&1 | FileCheck %s
# A per-head fragment filled for every one of block_M rows: `sinks` has `heads` elements but
# the T.Parallel loop runs i up to block_M - 1. The CPU interpreter stops at the access; on
# the GPU the index past the end lands in another register or in local memory, so the
# compiler refuses it at the line, for the write and for the read.
# CHECK: fail_static_out_of_bounds.py:[[@LINE+14]]:17: error: write of `sinks` with shape [8] at index 63 in dimension 0: the index runs over 0..63 as the loops go round{{.*}}[StaticOutOfBounds]
# CHECK: fail_static_out_of_bounds.py:[[@LINE+18]]:26: error: read of `sinks` with shape [8] at index 63 in dimension 0
# CHECK-NOT: error:
import tilelang.language as T


def kernel(heads=8, block_M=64):
    @T.prim_func
    def main(S: T.Tensor((heads,), "float32"), O: T.Tensor((heads, block_M), "float32")):
        with T.Kernel(heads, threads=128) as by:
            sinks = T.alloc_fragment([heads], "float32")
            acc = T.alloc_fragment([block_M], "float32")
            fine = T.alloc_fragment([block_M], "float32")
            for i in T.Parallel(block_M):
                sinks[i] = S[by]
            for i in T.Parallel(block_M):
                if i < heads:
                    fine[i] = S[i]  # guarded: never reported
            for i in T.Parallel(block_M):
                acc[i] = sinks[i] * 2.0 + T.if_then_else(i < heads, sinks[i], 0.0)
            T.copy(acc, O[by, 0:block_M])

    return main
