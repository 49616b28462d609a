# Lesson 5: row softmax with fragment reductions, with the row sum left out.
#
# Each block holds `block_M` whole rows in registers: it takes the row maximum,
# exponentiates `x - max`, sums the row and divides. The sum is missing: `row_sum` is
# cleared and never filled, so every division is by zero.
#
# Subtracting the maximum first keeps exp from overflowing (exp of anything <= 0 is at most
# 1) and does not change the result, because it scales the numerator and the sum alike.
# `T.reduce_max` and `T.reduce_sum` fold one dimension of a fragment into a smaller one; on
# the GPU they combine each thread's partial result with warp shuffles.
#
# tileplay: lesson Row softmax: the row sum
# tileplay: hint The normalising loop divides by `row_sum[i]`, which nothing has written since `T.clear(row_sum)`.
# tileplay: hint After the exp loop, x holds the numerators: `T.reduce_sum(x, row_sum, dim=1)` adds up each row.
# tileplay: kernel=softmax
# tileplay: args M=8192 N=8192
# tileplay: cpu-args M=32 N=256
# tileplay: bytes 2*2*M*N
# tileplay: flops 5*M*N
# tileplay: baseline torch: softmax(X, -1)
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def softmax(M, N, block_M=1, threads=128, dtype="float16"):
    accum_dtype = "float32"

    @T.prim_func
    def main(
        X: T.Tensor((M, N), dtype),
        Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads) as bx:
            x = T.alloc_fragment((block_M, N), accum_dtype)
            row_max = T.alloc_fragment((block_M,), accum_dtype)
            row_sum = T.alloc_fragment((block_M,), accum_dtype)

            T.copy(X[bx * block_M, 0], x)
            T.reduce_max(x, row_max, dim=1)
            for i, j in T.Parallel(block_M, N):
                x[i, j] = T.exp(x[i, j] - row_max[i])
            T.clear(row_sum)
            # TODO(lesson): sum each row of x into row_sum
            for i, j in T.Parallel(block_M, N):
                x[i, j] = x[i, j] / row_sum[i]
            T.copy(x, Y[bx * block_M, 0])

    return main
