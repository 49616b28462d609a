# Two kernel factories with one signature; the file calls only the second. The first takes the
# second's call arguments for the parameters they share (`never called: shares the arguments of`),
# and a factory with a parameter no call binds (`width`) stays unresolved.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale_old(n, block, factor=2.0):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(T.ceildiv(n, block)) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] * factor

    return main


@tilelang.jit(out_idx=[-1])
def scale_new(n, block, factor=2.0):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(T.ceildiv(n, block)) as bx:
            for i in T.Parallel(block):
                B[bx * block + i] = A[bx * block + i] * factor + 1.0

    return main


@tilelang.jit(out_idx=[-1])
def scale_wide(n, width):
    @T.prim_func
    def main(A: T.Tensor((n, width), T.float32), B: T.Tensor((n, width), T.float32)):
        with T.Kernel(n, threads=64) as row:
            T.copy(A[row, :], B[row, :])

    return main


if __name__ == "__main__":
    scale_new(512, 64, factor=3.0)
