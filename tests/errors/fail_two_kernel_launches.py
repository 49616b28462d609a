# RUN: not %tilec compile %s --emit cuda --arch sm_80 2>&1 | FileCheck %s
# Two `T.Kernel` launches in one kernel function (TileLang's split-then-combine style). TilePlay
# compiles one launch per function; the second is refused at its line rather than merged into
# the first launch's grid (where its body would run in every block of the first).
# CHECK: fail_two_kernel_launches.py:[[@LINE+13]]:{{[0-9]+}}: error: invalid `T.Kernel` launch: a second `T.Kernel` in the same kernel function; TilePlay compiles one launch per function, so put each launch in a factory of its own [BadKernelLaunch]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def split_then_combine(M=128, D=64, splits=2, block_M=64):
    @T.prim_func
    def main(Q: T.Tensor((M, D), "float16"), P: T.Tensor((splits, M, D), "float32"), O: T.Tensor((M, D), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), splits, threads=128) as (bx, bz):
            acc = T.alloc_fragment((block_M, D), "float32")
            T.copy(Q[bx * block_M, 0], acc)
            T.copy(acc, P[bz, bx * block_M, 0])
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            part = T.alloc_fragment((block_M, D), "float32")
            acc = T.alloc_fragment((block_M, D), "float32")
            T.clear(acc)
            for s in T.serial(splits):
                T.copy(P[s, bx * block_M, 0], part)
                for i, j in T.Parallel(block_M, D):
                    acc[i, j] += part[i, j]
            T.copy(acc, O[bx * block_M, 0])

    return main
