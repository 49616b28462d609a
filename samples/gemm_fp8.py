# FP8 GEMM (sm_89 and newer): A [M][K] and B [N][K] in float8 e4m3, both K-major, the only
# layout fp8 Tensor Cores read, so the gemm is T.gemm(..., transpose_B=True). Products add up in
# an fp32 fragment; C is float16. On sm_89 and sm_90 the gemm runs mma.sync m16n8k32; on sm_90a
# it is wgmma m64nNk32 fed by a TMA producer warpgroup (--arch sm_90a; inspect it). The peer is
# torch._scaled_mm (cuBLASLt's fp8 GEMM) with unit scales.
#
# tileplay: kernel=matmul_fp8
# tileplay: args M=8192 N=8192 K=8192
# tileplay: cpu-args M=256 N=256 K=256
# tileplay: flops 2*M*N*K
# tileplay: bytes M*K + N*K + 2*M*N
# tileplay: baseline torch: torch._scaled_mm(A, B.t(), scale_a=torch.ones((), device="cuda"), scale_b=torch.ones((), device="cuda"), out_dtype=torch.float16)
# tileplay: variant Hopper tiles: block_M=128 block_N=256 block_K=128 num_stages=4 threads=256
import argparse

import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul_fp8(M, N, K, block_M=128, block_N=128, block_K=128, num_stages=3, threads=256, dtype="float8_e4m3", accum_dtype="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((N, K), dtype),
        C: T.Tensor((M, N), "float16"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_N, block_K), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.use_swizzle(panel_size=10)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K], B_shared)
                T.gemm(A_shared, B_shared, C_local, transpose_B=True)

            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


if __name__ == "__main__":
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=8192)
    parser.add_argument("--n", type=int, default=8192)
    parser.add_argument("--k", type=int, default=8192)
    args = parser.parse_args()
    kernel = matmul_fp8(args.m, args.n, args.k)
    a = torch.randn(args.m, args.k, device="cuda").to(torch.float8_e4m3fn)
    b = torch.randn(args.n, args.k, device="cuda").to(torch.float8_e4m3fn)
    ref = (a.float() @ b.float().t()).half()
    torch.testing.assert_close(kernel(a, b), ref, rtol=2e-2, atol=2e-1)
    print("fp8 gemm matches torch")
