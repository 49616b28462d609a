# A GEMM epilogue on sm_90a's producer/consumer path reads a row vector (scale), a column vector
# (bias), a 2-D tensor and C itself from global memory after the main loop's last wgmma group
# was waited for: the epilogue is the user's T.Parallel loop on the accumulator registers of
# the consumer warpgroup (one warpgroup here, two interleaved 64-row blocks). The guard
# `bx * 128 + j < N` is proved by the grid (8 column tiles of 128 and N = 1024) and folded.
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_90a | FileCheck %s --check-prefix=MIX
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_90 | FileCheck %s --check-prefix=SM90
# MIX: } else {
# MIX: tp::wgmma_wait<0>(), tp::wgmma_fence_operands<128>(&C_local[0]);
# MIX: C_local[tp_f_1] = (((((C_local[tp_f_1] * static_cast<float>(scale[((by * 128) + i)])) + static_cast<float>(bias[((bx * 128) + j)]))
# MIX-SAME: static_cast<float>(D[
# MIX-SAME: static_cast<float>(C[
# MIX-SAME: static_cast<float>(shift[((bx * 128) + j)])
# MIX-NOT: ?
# The epilogue reads C, so the TMA store waits for its writes to complete (WAIT_WRITES).
# MIX: tp::frag_store_tma<tp::AccLayout<128, 128, 4, 1, true>, half_t, 2, 1, true>(&C_local[0], &tp_store_stage[0], &tp_tma_0, tx, (bx * 128), (by * 128));
# SM90: bias[((bx * 128) + j)]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def mixed_epilogue(M=1024, N=1024, K=1024, block_M=128, block_N=128, block_K=64, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        bias: T.Tensor((N,), dtype),
        scale: T.Tensor((M,), dtype),
        shift: T.Tensor((N,), dtype),
        D: T.Tensor((M, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=4):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = (C_local[i, j] * T.cast(scale[by * block_M + i], accum_dtype) + T.cast(bias[bx * block_N + j], accum_dtype)
                                 + T.cast(D[by * block_M + i, bx * block_N + j], accum_dtype) + T.cast(C[by * block_M + i, bx * block_N + j], accum_dtype)
                                 + T.if_then_else(bx * block_N + j < N, T.cast(shift[bx * block_N + j], accum_dtype), 0.0))
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
