# A vector add whose @autotune space depends on the fixed parameter N: `tilec tune` and
# `tilec sweep` both read it.
#
# tileplay: kernel=vadd
# tileplay: args N=4096
# tileplay: cpu-args N=1000
# tileplay: baseline torch: A + B
import itertools

import tilelang
import tilelang.language as T
from tilelang.autotuner import autotune


def get_configs(N):
    blocks = [b for b in (64, 128, 256, 8192) if b <= N]
    return [{"block_N": b, "threads": t} for b, t in itertools.product(blocks, [128])]


@autotune(configs=get_configs(N))
@tilelang.jit(out_idx=[-1])
def vadd(N, block_N=128, threads=128, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype), C: T.Tensor((N,), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as bx:
            for i in T.Parallel(block_N):
                idx = bx * block_N + i
                if idx < N:
                    C[idx] = A[idx] + B[idx]

    return main
