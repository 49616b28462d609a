# Tutorial 4: a fused epilogue. The GEMM of tutorial 2, then bias add and GELU applied to the
# fp32 accumulator while it is still in registers: one T.Parallel loop over the fragment
# (each thread touches only the elements its mma.sync tiles hold) and the only store to C.
# Compare with cuBLASLt's GELU_BIAS epilogue and with torch running the three ops eagerly.
#
# tileplay: kernel=matmul_bias_gelu
# tileplay: args M=4096 N=4096 K=4096
# tileplay: cpu-args M=256 N=256 K=256
# tileplay: flops 2*M*N*K
# tileplay: bytes 2*(M*K + K*N + M*N + N)
# tileplay: baseline cublaslt.gemm_bias_gelu
# tileplay: baseline torch.compile: gelu(A @ B + bias)
# tileplay: baseline torch: gelu(A @ B + bias)
# tileplay: variant Hopper tiles: block_M=128 block_N=256 block_K=64 num_stages=4 threads=256
import argparse

import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul_bias_gelu(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=2, threads=128, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        bias: T.Tensor((N,), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.use_swizzle(panel_size=10)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)

            # Epilogue on the accumulator: bias, then GELU (erf form, as torch's default).
            # Columns past N (edge tiles) are never stored; they read the last bias element.
            for i, j in T.Parallel(block_M, block_N):
                x = C_local[i, j] + T.cast(bias[T.min(bx * block_N + j, N - 1)], accum_dtype)
                C_local[i, j] = 0.5 * x * (1.0 + T.erf(x * 0.7071067811865476))

            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


if __name__ == "__main__":
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=4096)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--k", type=int, default=4096)
    args = parser.parse_args()
    kernel = matmul_bias_gelu(args.m, args.n, args.k)
    a = torch.randn(args.m, args.k, device="cuda", dtype=torch.float16)
    b = torch.randn(args.k, args.n, device="cuda", dtype=torch.float16)
    bias = torch.randn(args.n, device="cuda", dtype=torch.float16)
    ref = torch.nn.functional.gelu(a @ b + bias)
    torch.testing.assert_close(kernel(a, b, bias), ref, rtol=1e-2, atol=1e-2)
    print("gemm + bias + gelu matches torch")
