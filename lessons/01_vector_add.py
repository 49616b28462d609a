# Lesson 1: each sum is computed and then dropped: store it, so that C = A + B.
#
# Nothing is written to C, so it keeps the zeros it was allocated with and the check against
# `A + B` fails.
#
# A tile kernel is a grid of thread blocks (`T.Kernel`); block `bx` owns the `block_N`
# elements starting at `bx * block_N`, and `T.Parallel` spreads them over the block's
# threads. Nothing reaches global memory unless a statement writes it there: reading A and B
# and naming the sum `s` only keeps it in a register.
#
# Fill the gap marked TODO(lesson), then Run on the CPU: the playground checks C against a
# C++ `A + B` and says when the lesson passes (`tilec run FILE --device cpu --check` does
# the same from a terminal).
#
# tileplay: lesson Vector add: store the result
# tileplay: hint `s` is computed for every element but never written anywhere. The output is the kernel's third tensor, C.
# tileplay: hint Write it at the index you read from, inside the `if idx < N:` guard: `C[idx] = s`.
# tileplay: kernel=vector_add
# tileplay: args N=16777216
# tileplay: cpu-args N=5000
# tileplay: bytes 3*4*N
# tileplay: flops N
# tileplay: baseline torch: A + B
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def vector_add(N, block_N=256, threads=256, dtype="float32"):
    @T.prim_func
    def main(
        A: T.Tensor((N,), dtype),
        B: T.Tensor((N,), dtype),
        C: T.Tensor((N,), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), threads=threads) as bx:
            for i in T.Parallel(block_N):
                idx = bx * block_N + i
                # N need not be a multiple of block_N: the last block's spare threads do nothing.
                if idx < N:
                    s = A[idx] + B[idx]
                    # TODO(lesson): store `s` in the output tensor at position `idx`

    return main
