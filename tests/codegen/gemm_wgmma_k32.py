# sm_90a with the sample's own block_K = 32: the warp-specialized ring holds 64-wide K tiles,
# so pairs of iterations become one (same sums, same k16 order). A trip count of 127 over
# K = 4064 pairs too (the extra half tile lies past K and TMA fills it with zeros); over K = 4096
# the extra half would be real data the DSL never multiplies, so that loop keeps mma.sync.
# The ring gets 4 slots even though the sample asks for num_stages=2 (see the plan pass).
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_90a | FileCheck %s --check-prefix=PAIRS
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_90a -D K=4064 | FileCheck %s --check-prefix=ODD
# RUN: %tilec compile %s -k matmul_short --emit cuda --no-lineinfo --arch sm_90a | FileCheck %s --check-prefix=SHORT --implicit-check-not=WsGemm
# A layout annotated for the 32-wide tiles would not fit the widened ones: no pairing either.
# RUN: %tilec compile %s -k matmul_annotated --emit cuda --no-lineinfo --arch sm_90a | FileCheck %s --check-prefix=SHORT --implicit-check-not=WsGemm
# PAIRS: tp::WsGemm<half_t, 128, 128, 64, 4, 2, false, false>::init(
# PAIRS: for (int k = 0; k < 64; ++k) {
# PAIRS-NEXT: ::produce(&tp_tma_0, &tp_tma_1, &A_shared[0], &B_shared[0], &tp_ws_barriers[0], ((tp_tile * 64) + k), (k * 64), (by * 128), (bx * 128), (k * 64));
# PAIRS: for (int k = 0; k < 64; ++k) {
# PAIRS-NEXT: ::consume(
# ODD: tp::WsGemm<half_t, 128, 128, 64, 4, 2, false, false>::init(
# ODD: for (int k = 0; k < 64; ++k) {
# SHORT: tp::gemm_ss<
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul_short(M=4096, N=4096, K=4096, block_M=128, block_N=128, block_K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            # One K tile short of the whole of K: an odd trip count with data past its end.
            for k in T.Pipelined(K // block_K - 1, num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


@tilelang.jit(out_idx=[-1])
def matmul_annotated(M=1024, N=1024, K=1024, block_M=128, block_N=128, block_K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.annotate_layout({A_shared: T.make_swizzled_layout(A_shared)})
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
