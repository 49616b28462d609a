# RUN: not %tilec compile %s --emit cuda --arch sm_80 2>&1 | FileCheck %s
# A kernel function of two `T.Kernel` launches runs each as a kernel of its own; a store
# between them would belong to neither, so it is refused at its line like any device code
# outside a launch.
# CHECK: fail_store_between_launches.py:[[@LINE+12]]:9: error: `buffer store` must be called inside a `with T.Kernel(...)` block [TileOpOutsideKernel]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def between(M=128, block_M=64):
    @T.prim_func
    def main(X: T.Tensor((M,), "float32"), O: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=64) as bx:
            for i in T.Parallel(block_M):
                O[bx * block_M + i] = X[bx * block_M + i]
        O[0] = 1.0
        with T.Kernel(T.ceildiv(M, block_M), threads=64) as bx:
            for i in T.Parallel(block_M):
                O[bx * block_M + i] = O[bx * block_M + i] * 2.0

    return main
