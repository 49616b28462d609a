# RUN: not %tilec compile %s --print-after=simplfy --emit lowered 2>&1 | FileCheck %s
# CHECK: error: unknown pass `simplfy` in --print-after (did you mean `simplify`?); passes in order: verify, simplify, check-bounds, check-thread-branches, lower-roles, math-idioms, fold-accumulator-clear, guard-masks, check-resources, {{.*}} [UnknownPass]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            A[i] = 0.0
