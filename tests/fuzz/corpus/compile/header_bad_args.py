# tileplay: cpu-args N=( block_N= dtype=[1,
# Tutorial 1: vector add. Each thread block adds one tile of `block_N` elements; T.Parallel
# spreads the tile over the block's threads, so neighbouring threads touch neighbouring
# addresses and every load and store is coalesced. Memory bound: compare its GB/s with
# PyTorch's `A + B` (2 reads + 1 write per element).
#
# tileplay: kernel=vector_add
# tileplay: args N=268435456
# tileplay: cpu-args N=100000
# tileplay: bytes 3*4*N
# tileplay: flops N
# tileplay: baseline torch: A + B
import argparse

import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def vector_add(N, block_N=256, threads=256, dtype="float32"):
    @T.prim_func
    def main(
        A: T.Tensor((N,), dtype),
        B: T.Tensor((N,), dtype),
        C: T.Tensor((N,), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as bx:
            for i in T.Parallel(block_N):
                idx = bx * block_N + i
                if idx < N:
                    C[idx] = A[idx] + B[idx]

    return main


if __name__ == "__main__":
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1 << 28)
    args = parser.parse_args()
    kernel = vector_add(args.n)
    a = torch.randn(args.n, device="cuda")
    b = torch.randn(args.n, device="cuda")
    torch.testing.assert_close(kernel(a, b), a + b)
    print("vector add matches torch")
