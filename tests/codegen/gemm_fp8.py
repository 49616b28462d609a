# fp8 T.gemm (TileLang's gemm_fp8 examples: A [M][K], B [N][K], transpose_B=True, fp32
# accumulators). sm_90a: wgmma m64nNk32 on e4m3 / e5m2 descriptors (K-major both, 128-byte
# swizzled rows of 128 fp8 elements) fed by the TMA producer. sm_89 and sm_90: mma.sync
# m16n8k32 on the 16-bit view of the same swizzled tiles (tp::gemm_ss_fp8). sm_80 has no fp8.
# B stored [K][N] (N-major) cannot feed fp8 Tensor Cores: a remark says why wgmma is not taken
# and the error says why no fallback exists.
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_90a | FileCheck %s --check-prefix=CUDA90A
# RUN: %tilec compile %s --emit ptx --arch sm_90a | FileCheck %s --check-prefix=PTX90A
# RUN: %tilec compile %s --emit ptx --arch sm_90a -D b_dtype=float8_e5m2 | FileCheck %s --check-prefix=MIXED
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_89 | FileCheck %s --check-prefix=CUDA89
# RUN: %tilec compile %s --emit ptx --arch sm_89 | FileCheck %s --check-prefix=PTX89
# RUN: not %tilec compile %s --emit cuda --arch sm_80 2>&1 | FileCheck %s --check-prefix=SM80
# RUN: not %tilec compile %s --emit cuda --arch sm_90a --remarks -D n_major_b=True 2>&1 | FileCheck %s --check-prefix=NMAJOR
# CUDA90A: tp::tma_load(&A_shared[(tp_A_shared_p_slot * 16384)], &tp_tma_1, &tp_mbar[tp_A_shared_p_slot], (k * 128), (by * 128));
# CUDA90A: tp::gemm_wgmma_ss<128, 128, 128, 8, 1, false, true, fp8_e4_t>(
# PTX90A: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3
# MIXED: wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2
# CUDA89: tp::copy_g2s<128, 128, 256, fp8_e4_t, true, true>(
# CUDA89: tp::gemm_ss_fp8<128, 128, 128, 2, 4, fp8_e4_t, fp8_e4_t, true>(
# PTX89: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
# SM80: gemm_fp8.py:[[@LINE+14]]:{{[0-9]+}}: error: `float8_e4m3` needs sm_89, but the target is sm_80
# NMAJOR: gemm_fp8.py:[[@LINE+25]]:{{[0-9]+}}: remark: {{.*}}fp8 wgmma reads both operands K-major
# NMAJOR: gemm_fp8.py:[[@LINE+24]]:{{[0-9]+}}: error: {{.*}}fp8 T.gemm other than A [M][K] and B [N][K]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=512, N=512, K=512, block_M=128, block_N=128, block_K=128, dtype="float8_e4m3", b_dtype="float8_e4m3",
           n_major_b=False, threads=256, stages=3):
    b_shape = (K, N) if n_major_b else (N, K)
    b_tile = (block_K, block_N) if n_major_b else (block_N, block_K)

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor(b_shape, b_dtype), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared(b_tile, b_dtype)
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                if n_major_b:
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                else:
                    T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=not n_major_b)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
