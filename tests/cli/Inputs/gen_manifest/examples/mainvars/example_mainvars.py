# Two factories the file never calls; the __main__ block runs neither but assigns variables named
# like their parameters. `tiled_sum` takes them (every parameter it misses is named there, its
# T.const sizes too); `strided_sum` keeps `stride`, which only a module global names, unresolved.
import tilelang
import tilelang.language as T

stride = 4


@tilelang.jit
def tiled_sum(A, blk_m, blk_k):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), T.float32)
    B = T.empty((M,), T.float32)
    with T.Kernel(T.ceildiv(M, blk_m), threads=32) as bx:
        for i in T.Parallel(blk_m):
            B[bx * blk_m + i] = A[bx * blk_m + i, 0] * blk_k
    return B


@tilelang.jit
def strided_sum(A, blk_m, stride):
    M, N = T.const("M, N")
    A: T.Tensor((M, N), T.float32)
    B = T.empty((M, N // stride), T.float32)
    with T.Kernel(M, threads=32) as row:
        for j in T.serial(N // stride):
            B[row, j] = A[row, j * stride] + blk_m
    return B


if __name__ == "__main__":
    M, N, blk_m, blk_k = 1024, 512, 2, 128
    print(M * N * blk_m * blk_k)
