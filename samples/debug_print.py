# Tutorial 8: debugging a kernel from the inside. T.print writes a scalar, a shared-memory
# tile or a register fragment with its message and the block/thread ids, one line per
# element (on the GPU one thread prints, a fragment gathered from the threads that own it;
# the CPU interpreter prints the same lines). Guard it with `if bx == 0 and by == 0:` so one
# block speaks. T.device_assert stops the kernel when a condition is false: here an input
# larger than `limit` in magnitude; run with `-D limit=0` to see it fire and name the block.
#
# tileplay: kernel=scale_tile
# tileplay: args M=1024 N=1024
# tileplay: cpu-args M=16 N=32
# tileplay: bytes 2*4*M*N
import argparse

import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale_tile(M, N, block_M=4, block_N=8, threads=32, scale=2.0, limit=1000.0, dtype="float32"):
    @T.prim_func
    def main(
        A: T.Tensor((M, N), dtype),
        B: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_N), dtype)
            B_frag = T.alloc_fragment((block_M, block_N), dtype)
            T.copy(A[by * block_M, bx * block_N], A_shared)
            T.device_assert(T.abs(A_shared[0, 0]) <= limit, "input larger than limit")
            for i, j in T.Parallel(block_M, block_N):
                B_frag[i, j] = A_shared[i, j] * scale
            if bx == 0 and by == 0:
                T.print(bx * block_N + by * block_M, msg="first element of the tile")
                T.print(A_shared, msg="A tile in shared memory")
                T.print(B_frag, msg="scaled tile in registers")
            T.copy(B_frag, B[by * block_M, bx * block_N])

    return main


if __name__ == "__main__":
    import torch

    parser = argparse.ArgumentParser()
    parser.add_argument("--m", type=int, default=1024)
    parser.add_argument("--n", type=int, default=1024)
    args = parser.parse_args()
    kernel = scale_tile(args.m, args.n)
    a = torch.randn(args.m, args.n, device="cuda")
    torch.testing.assert_close(kernel(a), a * 2.0)
    print("debug print sample ran; the lines above come from the device")
