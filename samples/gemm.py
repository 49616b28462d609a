# Tutorial 2: GEMM on Tensor Cores. Each block computes a block_M x block_N tile of C:
# T.Pipelined streams block_K-wide slices of A and B into shared memory with cp.async
# (num_stages buffers in flight), T.gemm runs mma.sync + ldmatrix on them, and the fp32
# accumulator lives in registers (a fragment) until the one store at the end.
# T.use_swizzle deals blocks out in panels so neighbouring blocks share tiles in L2.
# The same file compiled for sm_90a (Hopper) becomes a warp-specialized kernel: a producer
# warpgroup loads the tiles with TMA into mbarrier rings and the block's threads, the consumer
# warpgroups, run wgmma, keeping one group in flight (--arch sm_90a; inspect it). The
# "Hopper tiles" variant gives each of two warpgroups 64 x 256 of the tile.
#
# tileplay: kernel=matmul
# tileplay: args M=4096 N=4096 K=4096
# tileplay: cpu-args M=256 N=256 K=256
# tileplay: flops 2*M*N*K
# tileplay: bytes 2*(M*K + K*N + M*N)
# tileplay: baseline cublas.gemm
# tileplay: baseline cublaslt.gemm
# tileplay: baseline torch: A @ B
# tileplay: variant Hopper tiles: block_M=128 block_N=256 block_K=64 num_stages=4 threads=256
# tileplay: variant mma.sync: arch=sm_90
import argparse

import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=2, threads=128, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
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

            T.copy(C_local, C[by * block_M, bx * block_N])

    return main


if __name__ == "__main__":
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=4096)
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--k", type=int, default=4096)
    args = parser.parse_args()
    kernel = matmul(args.m, args.n, args.k)
    a = torch.randn(args.m, args.k, device="cuda", dtype=torch.float16)
    b = torch.randn(args.k, args.n, device="cuda", dtype=torch.float16)
    torch.testing.assert_close(kernel(a, b), a @ b, rtol=1e-2, atol=1e-2)
    print("gemm matches torch")
