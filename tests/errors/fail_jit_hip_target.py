# RUN: not %tilec compile %s --arch sm_90a --emit ir 2>&1 | FileCheck %s
# A kernel written for AMD GPUs (`@tilelang.jit(target="hip ...")`) is refused before tracing,
# with the target it needs, rather than at the first HIP-only helper it calls.
# CHECK: fail_jit_hip_target.py:[[@LINE+5]]:{{[0-9]+}}: error: `@tilelang.jit(target="hip -mcpu=gfx950")` needs an AMD gfx target (HIP), but the target is sm_90a [FeatureNeedsTarget]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], target="hip -mcpu=gfx950")
def add_one(n=64):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(1, threads=64) as bx:
            for i in T.Parallel(n):
                B[i] = A[i] + 1.0

    return main
