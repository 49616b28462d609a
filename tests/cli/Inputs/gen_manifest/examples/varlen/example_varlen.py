# Sizes that come from random draws: the generator's first pass leaves them unresolved, its
# second takes each draw at its upper bound (lengths of 64, so 2 * 64 rows) and marks them
# `drawn`. A store of known values (`cu[1:] = torch.cumsum(...)`) keeps them, a tensor written in
# place with unknown ones (`cu.copy_(...)`) loses the values it had, and a name two arms of an
# unknown `if` leave different is unknown after it.
import os
import sys

import tilelang
import tilelang.language as T
import torch

sys.path.append(os.path.join(os.path.dirname(__file__), "../padding_helpers"))
from unpad import random_mask, unpad  # noqa: E402


@tilelang.jit(out_idx=[-1])
def packed_copy(total, heads, dim, max_len, block=32):
    @T.prim_func
    def main(Q: T.Tensor((total, heads, dim), T.float16), O: T.Tensor((total, heads, dim), T.float16)):
        with T.Kernel(T.ceildiv(total, block), heads) as (bx, by):
            for i, d in T.Parallel(block, dim):
                O[bx * block + i, by, d] = Q[bx * block + i, by, d]

    return main


@tilelang.jit(out_idx=[-1])
def zeroed_total(total, dim):
    @T.prim_func
    def main(A: T.Tensor((total, dim), T.float32), B: T.Tensor((total, dim), T.float32)):
        with T.Kernel(total) as bx:
            for d in T.Parallel(dim):
                B[bx, d] = A[bx, d]

    return main


@tilelang.jit(out_idx=[-1])
def after_copy(total):
    @T.prim_func
    def main(A: T.Tensor((total,), T.float32), B: T.Tensor((total,), T.float32)):
        with T.Kernel(1) as bx:
            for i in T.Parallel(total):
                B[i] = A[i]

    return main


@tilelang.jit(out_idx=[-1])
def either_arm(n):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(1) as bx:
            for i in T.Parallel(n):
                B[i] = A[i]

    return main


def run(batch=2, max_len=64, heads=4, dim=32):
    mask = random_mask(max_len, batch)
    q = torch.randn(batch, max_len, heads, dim).half()
    q_unpad, cu, longest = unpad(q, mask)
    packed_copy(q_unpad.shape[0], heads, dim, longest)
    cu_k = torch.zeros(batch + 1, dtype=torch.int32)
    cu_k[1:] = torch.cumsum(torch.tensor([5, 7]), dim=0)
    zeroed_total(cu_k[-1].item(), dim)
    cu_k.copy_(torch.randint(0, 9, (batch + 1,)))
    after_copy(cu_k[-1].item())
    if mask.any():
        n = 16
    else:
        n = 32
    either_arm(n)


if __name__ == "__main__":
    run()
