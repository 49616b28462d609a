# A column vector reduced to one value (dsa_hisa's fp8 block mean pooling: T.reduce_sum of a
# fragment along dim=0, then T.reduce_absmax of the resulting column vector into a [1]
# fragment): tp::reduce_col_vector combines a thread's columns, the lanes of its row group that
# hold the others, then the warps along N through shared scratch, leaving out the copies the
# warps along M hold (a sum counts each column once; tests/gpu_kernels/reduce_test.cu checks it
# on the GPU). An fp8 source fragment reduces through fp32 partials (sm_90a: fp8 needs sm_89).
# On the CPU, OUT (the two reductions) must equal REF (the same sums and maximum written as
# loops over the input): here the first element of each, whose statistics FileCheck compares.
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 -o %t.ptx
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_90a -D dtype=float8_e4m3fn | FileCheck %s --check-prefix=FP8
# RUN: %tilec compile %s --emit ptx --arch sm_90a -D dtype=float8_e4m3fn -o %t8.ptx
# RUN: %tilec run %s --device cpu | FileCheck %s --check-prefix=CPU
# CHECK: tp::reduce_cols<tp::AccLayout<64, 128, 2, 4>, tp::ReduceOp::Sum, true>(&tile[0], &colsum[0], &tp_reduce_scratch[0], tx);
# CHECK: tp::reduce_col_vector<tp::AccLayout<64, 128, 2, 4>, tp::ReduceOp::AbsMax, true>(&colsum[0], &amax[0], &tp_reduce_scratch[0], tx);
# FP8: tp::reduce_cols<tp::AccLayout<64, 128, 2, 4>, tp::ReduceOp::Sum, true>(&tile[0], &colsum[0], &tp_reduce_scratch[0], tx);
# FP8: tp::reduce_col_vector<tp::AccLayout<64, 128, 2, 4>, tp::ReduceOp::AbsMax, true>(&colsum[0], &amax[0], &tp_reduce_scratch[0], tx);
# CPU: output Out: float32[4] [[STATS:.*]]
# CPU: output Ref: float32[4] [[STATS]]
#
# tileplay: kernel=col_absmax
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def col_absmax(blocks=4, block_N=64, dim=128, threads=256, dtype=T.float16):
    @T.prim_func
    def main(K: T.Tensor((blocks * block_N, dim), dtype), Out: T.Tensor((blocks,), T.float32), Ref: T.Tensor((blocks,), T.float32)):
        with T.Kernel(blocks, threads=threads) as bx:
            tile = T.alloc_fragment([block_N, dim], dtype)
            colsum = T.alloc_fragment([dim], T.float32)
            amax = T.alloc_fragment([1], T.float32)
            T.copy(K[bx * block_N : (bx + 1) * block_N, :], tile)
            T.reduce_sum(tile, colsum, dim=0, clear=True)
            T.reduce_absmax(colsum, amax, dim=0, clear=True)
            Out[bx] = amax[0]
        with T.Kernel(blocks, threads=32) as bx:
            best = T.alloc_var(T.float32)
            best = 0.0
            for d in T.serial(dim):
                s = T.alloc_var(T.float32)
                s = 0.0
                for n in T.serial(block_N):
                    s = s + T.cast(K[bx * block_N + n, d], T.float32)
                best = T.max(best, T.abs(s))
            Ref[bx] = best

    return main
