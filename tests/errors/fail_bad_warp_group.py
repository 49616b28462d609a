# RUN: not %tilec compile %s --emit ir 2>&1 | FileCheck %s
# Warp group 2 would be threads 256..383, which a block of 256 threads does not have.
# CHECK: fail_bad_warp_group.py:[[@LINE+10]]:{{[0-9]+}}: error: `T.ws` names warp group 2; the block's 256 threads form 2 warp group(s) of 128 [BadWarpGroup]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def roles(N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=256) as bx:
            with T.ws(2):
                T.copy(A, B)

    return main
