# Reductions over a 2x2-warp accumulator: along dim=1 (row vectors, partials combined across
# the two warp columns through shared scratch) and dim=0 (column vectors), clear=True and
# clear=False, then the vectors written out by a T.Parallel loop over their layout.
# RUN: %tilec compile %s --emit cuda --no-lineinfo | FileCheck %s
# CHECK: float* tp_reduce_scratch = reinterpret_cast<float*>(tp_smem +
# CHECK: float rmax[4];
# CHECK: float csum[8];
# CHECK: tp::reduce_rows<tp::AccLayout<64, 64, 2, 2>, tp::ReduceOp::Max, true>(&acc[0], &rmax[0], &tp_reduce_scratch[0], tx);
# CHECK: tp::reduce_cols<tp::AccLayout<64, 64, 2, 2>, tp::ReduceOp::Sum, false>(&acc[0], &csum[0], &tp_reduce_scratch[0], tx);
# CHECK: tp::reduce_rows<tp::AccLayout<64, 64, 2, 2>, tp::ReduceOp::AbsSum, true>(&acc[0], &rabs[0], &tp_reduce_scratch[0], tx);
# CHECK: for (int tp_s = 0; tp_s < 4; ++tp_s) {
# CHECK: for (int tp_s_1 = 0; tp_s_1 < 8; ++tp_s_1) {
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2, 3, 4])
def reduce_gemm(M=128, N=64, K=64, block_M=64, block_N=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), RowMax: T.Tensor((M,), "float32"),
             ColSum: T.Tensor((T.ceildiv(M, block_M), N), "float32"), RowAbs: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, K), "float16")
            B_shared = T.alloc_shared((K, block_N), "float16")
            acc = T.alloc_fragment((block_M, block_N), "float32")
            rmax = T.alloc_fragment((block_M,), "float32")
            rabs = T.alloc_fragment((block_M,), "float32")
            csum = T.alloc_fragment((block_N,), "float32")
            T.copy(A[by * block_M, 0], A_shared)
            T.copy(B[0, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, acc, clear_accum=True)
            T.reduce_max(acc, rmax, dim=1)
            T.fill(csum, 1.0)
            T.reduce_sum(acc, csum, dim=0, clear=False)
            T.reduce_abssum(acc, rabs, dim=1)
            for i in T.Parallel(block_M):
                RowMax[by * block_M + i] = rmax[i]
                RowAbs[by * block_M + i] = rabs[i]
            for j in T.Parallel(block_N):
                ColSum[by, bx * block_N + j] = csum[j]

    return main
