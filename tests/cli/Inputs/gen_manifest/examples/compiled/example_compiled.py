# An eager kernel compiled with `.compile(n=...)` and then called with a tensor drawn from a
# torch.distributions object and passed through a host function (torch.exp, a keepdim sum):
# the call binds its T.dynamic `rows`. A kernel made and called in one expression
# (`copy_rows(32)(M)`) binds its T.dynamic size the same way.
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


def main():
    dist = torch.distributions.uniform.Uniform(0.0, 4.0)
    M = dist.sample((rows, n))
    kernel = row_scale.compile(n=n)
    kernel(normalize(M))
    copy_rows(32)(M)


if __name__ == "__main__":
    main()
