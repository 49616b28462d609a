# Sizes the manifest generator follows through host code: a sibling import, an eager kernel's
# declared output feeding the next kernel, a kernel whose T.dynamic size is bound when it is
# called with tensors, autograd's backward getting gradients shaped like forward's outputs,
# values of a literal tensor through arithmetic, string parsing and isinstance.
import argparse
import itertools

import tilelang
import tilelang.language as T
import torch
from helpers import BLOCKS, quantize


def ceil_div(x, y):
    return (x + y - 1) // y


@tilelang.jit
def scale_rows(X, S, block=BLOCKS[0]):
    M, N = T.const("M, N")
    X: T.Tensor((M, N), T.float16)
    S: T.Tensor((M,), T.float32)
    Y = T.empty((M, N), T.float32)
    with T.Kernel(T.ceildiv(M, block)) as bx:
        for i, j in T.Parallel(block, N):
            Y[bx * block + i, j] = X[bx * block + i, j] * S[bx * block + i]
    return Y


@tilelang.jit
def row_sum(A):
    R, C = T.const("R, C")
    A: T.Tensor((R, C), T.float32)
    Out = T.empty((R,), T.float32)
    with T.Kernel(R) as bx:
        Out[bx] = A[bx, 0]
    return Out


@tilelang.jit(out_idx=[-1])
def varlen_copy(heads, dim, padded):
    total = T.dynamic("total")
    shape = [total, heads, dim]

    @T.prim_func
    def main(Q: T.Tensor(shape, T.float16), O: T.Tensor(shape, T.float16)):
        with T.Kernel(T.ceildiv(total, padded)) as bx:
            T.copy(Q[bx * padded : (bx + 1) * padded, :, :], O[bx * padded : (bx + 1) * padded, :, :])

    return main


class ScaleRows(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, s):
        return scale_rows(x, s)

    @staticmethod
    def backward(ctx, grad):
        return row_sum(grad), None


def run(sizes_text, heads, dim):
    lengths = [int(t.strip()) for t in sizes_text.split(",") if t.strip()]
    cu = torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32)
    total = int(cu[-1].item())
    padded = int(ceil_div(torch.tensor(lengths).max(), 64) * 64)
    x = torch.randn(total, heads * dim)
    xq, scale = quantize(x, (0,))
    y = ScaleRows.apply(xq, scale)
    kernel = varlen_copy(heads, dim, padded if isinstance(padded, int) else 0)
    q = torch.randn(total, heads, dim).half()
    kernel(q)
    return y


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--lengths", type=str, default="96, 160")
    parser.add_argument("--heads", type=int, default=4)
    args = parser.parse_args()
    run(args.lengths, args.heads, dim=32)
