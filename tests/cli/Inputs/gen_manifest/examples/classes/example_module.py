# Host code in a class: an nn.Module whose __init__ keeps the sizes on self (given as **config)
# and whose forward calls the factory (the module called runs forward); ROWS comes from a star
# import of a sibling module; the kernel's out_idx output has the shape its parameter declares. Loops run as Python runs them up to
# MAX_ITERATIONS items, an early return included (pick_split(256) is 16); a longer one runs once
# for its calls, and what it sets or returns is unknown after it (long_split leaves rows_long's
# split unknown).
import tilelang
import tilelang.language as T
import torch
from shapes import *  # noqa: F403


@tilelang.jit(out_idx=[-1])
def rows(n, heads, dim, split):
    @T.prim_func
    def main(A: T.Tensor((n, heads, dim), T.float16), B: T.Tensor((n, heads, dim), T.float16)):
        with T.Kernel(split, heads) as (bx, by):
            for i, d in T.Parallel(n // split, dim):
                B[bx * (n // split) + i, by, d] = A[bx * (n // split) + i, by, d]

    return main


@tilelang.jit(out_idx=[-1])
def rows_long(n, split):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float16), B: T.Tensor((n,), T.float16)):
        with T.Kernel(split) as bx:
            for i in T.Parallel(n // split):
                B[bx * (n // split) + i] = A[bx * (n // split) + i]

    return main


@tilelang.jit(out_idx=[-1])
def doubled(n):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(1) as bx:
            for i in T.Parallel(n):
                B[i] = A[i] * 2

    return main


def pick_split(n):
    tried = []
    for s in range(1, 100):
        tried.append(s)
        if s * s >= n:
            return s
    return 1


def long_split(n):
    for s in range(1, 1000):
        if s * s * s >= n:
            return s
    return 1


class Rows(torch.nn.Module):
    def __init__(self, heads, dim):
        super().__init__()
        self.heads = heads
        self.dim = dim

    def forward(self, x):
        n = x.shape[0]
        return rows(n, self.heads, self.dim, pick_split(n))

    def coarse(self, x):
        return rows_long(x.shape[0], long_split(x.shape[0]))


def run():
    config = {"heads": 4, "dim": 32}
    module = Rows(**config)
    x = torch.randn(ROWS, 4, 32)  # noqa: F405
    kernel = module(x)
    y = kernel(x)  # out_idx=[-1]: B, with the shape main declares for it
    doubled(y.shape[0] * 2)
    module.coarse(x)


if __name__ == "__main__":
    run()
