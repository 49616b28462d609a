# Two `T.Kernel` launches in one kernel function (TileLang's split-then-combine style): each is
# a kernel of its own, run in program order, so the combine launch reads the partial sums the
# first launch wrote to global memory.
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit lowered --arch sm_90a | FileCheck --check-prefix=LOWERED %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: rm -rf %t && %tilec run %s --device cpu --save-inputs %t --save-outputs %t | FileCheck --check-prefix=CPU %s
# RUN: python3 %S/Inputs/npy_rowsum.py %t/X.npy %t/O.npy
# CHECK: extern "C" __global__ void __launch_bounds__(128) split_then_combine_kernel_0(
# CHECK: extern "C" __global__ void __launch_bounds__(64) split_then_combine_kernel_1(
# CHECK-NOT: __global__
# LOWERED: with T.Kernel(2, 4, threads=128)
# LOWERED: with T.Kernel(2, threads=64)
# CPU: grid (2, 4, 1)  launches: 2
# CPU: (CPU {{interpreter|jit}}, {{[0-9]+}} thread(s), 10 blocks)
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def split_then_combine(M=128, K=256, splits=4, block_M=64):
    block_K = K // splits

    @T.prim_func
    def main(X: T.Tensor((M, K), "float32"), P: T.Tensor((splits, M), "float32"), O: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), splits, threads=128) as (bx, bs):
            tile = T.alloc_fragment((block_M, block_K), "float32")
            part = T.alloc_fragment((block_M,), "float32")
            T.copy(X[bx * block_M, bs * block_K], tile)
            T.reduce_sum(tile, part, dim=1)
            T.copy(part, P[bs, bx * block_M])
        with T.Kernel(T.ceildiv(M, block_M), threads=64) as bx:
            acc = T.alloc_fragment((block_M,), "float32")
            T.clear(acc)
            for s in T.serial(splits):
                for i in T.Parallel(block_M):
                    acc[i] += P[s, bx * block_M + i]
            T.copy(acc, O[bx * block_M])

    return main
