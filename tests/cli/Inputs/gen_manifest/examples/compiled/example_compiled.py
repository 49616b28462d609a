# An eager kernel compiled with `.compile(n=...)` and then called with a tensor drawn from a
# torch.distributions object and passed through a host function (torch.exp, a keepdim sum):
# the call binds its T.dynamic `rows`. A kernel made and called in one expression
# (`copy_rows(32)(M)`) binds its T.dynamic size the same way. `varlen_rows` takes its sizes from
# a tensor built by torch.linspace, a gather by a permutation, .view and .expand, and its batch
# from the length of offsets joined by torch.cat.
import torch
import tilelang
import tilelang.language as T

rows = 512
n = 16


def normalize(M):
    P = torch.exp(M)
    return P / P.sum(-1, keepdim=True)


@tilelang.jit
def row_scale(x, block: int = 32):
    rows = T.dynamic("rows")
    n = T.const("n")
    x: T.Tensor([rows, n], T.float32)
    y = T.empty([rows, n], T.float32)
    with T.Kernel(T.ceildiv(rows, block), threads=128) as bx:
        for i, j in T.Parallel(block, n):
            y[bx * block + i, j] = x[bx * block + i, j] * 2.0
    return y


@tilelang.jit(out_idx=[-1])
def copy_rows(block):
    rows = T.dynamic("rows")

    @T.prim_func
    def main(X: T.Tensor((rows, 16), T.float32), Y: T.Tensor((rows, 16), T.float32)):
        with T.Kernel(T.ceildiv(rows, block), threads=128) as bx:
            for i, j in T.Parallel(block, 16):
                Y[bx * block + i, j] = X[bx * block + i, j]

    return main


@tilelang.jit
def varlen_rows(X, Offsets, batch, heads, dim, total):
    X: T.Tensor([total, heads, dim], T.float16)
    Offsets: T.Tensor([batch + 1], T.int32)
    with T.Kernel(batch, threads=128) as bx:
        for i in T.serial(Offsets[bx + 1] - Offsets[bx]):
            for h, d in T.Parallel(heads, dim):
                X[Offsets[bx] + i, h, d] = X[Offsets[bx] + i, h, d] * 2.0


def main():
    dist = torch.distributions.uniform.Uniform(0.0, 4.0)
    M = dist.sample((rows, n))
    kernel = row_scale.compile(n=n)
    kernel(normalize(M))
    copy_rows(32)(M)
    total = 64
    offsets = torch.cat([torch.tensor([0]), torch.arange(16, total)[torch.randperm(total - 1)[:2]], torch.tensor([total])], 0).sort()[0]
    x = torch.linspace(0, 1, steps=total)[torch.randperm(total)].view(total, 1, 1).expand(total, 4, 32)
    varlen_rows(x, offsets, batch=len(offsets) - 1, heads=x.shape[1], dim=x.shape[2], total=x.shape[0])


if __name__ == "__main__":
    main()
