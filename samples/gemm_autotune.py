# Tutorial 7: autotuning the GEMM. The schedule knobs of tutorial 2 (tile sizes, pipeline
# depth, threads, block swizzle) become a search space: `get_configs()` builds it the way
# TileLang's tutorial does (itertools.product + a comprehension) and `@autotune` hands it to
# the tuner. `tilec tune samples/gemm_autotune.py` rejects configs whose shared memory (every
# shared tile, times num_stages for the pipelined ones, plus the C staging tile) does not fit
# the target before compiling anything: compare `--arch sm_75` (64 KB per block) with
# `--arch sm_90` (227 KB). The rest are compiled in parallel, timed on the GPU, checked
# against the CPU interpreter, and ranked.
#
# tileplay: kernel=matmul
# tileplay: args M=4096 N=4096 K=4096
# tileplay: cpu-args M=256 N=256 K=256
# tileplay: flops 2*M*N*K
# tileplay: bytes 2*(M*K + K*N + M*N)
# tileplay: baseline cublas.gemm
# tileplay: baseline torch: A @ B
import argparse
import itertools

import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


def get_configs():
    block_M = [128, 256]
    block_N = [128, 256]
    block_K = [32, 64]
    num_stages = [2, 3]
    threads = [128, 256]
    enable_rasterization = [True, False]
    _configs = list(itertools.product(block_M, block_N, block_K, num_stages, threads, enable_rasterization))
    return [
        {
            "block_M": c[0],
            "block_N": c[1],
            "block_K": c[2],
            "num_stages": c[3],
            "threads": c[4],
            "enable_rasterization": c[5],
        }
        for c in _configs
    ]


@autotune(configs=get_configs(), warmup=3, rep=20)
@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=128, block_N=128, block_K=32, num_stages=2, threads=128, enable_rasterization=True,
           dtype="float16", accum_dtype="float"):
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
            C_shared = T.alloc_shared((block_M, block_N), dtype)

            T.use_swizzle(panel_size=10, enable=enable_rasterization)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)

            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

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
    print("best config:", kernel.config)
