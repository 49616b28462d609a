# A row normalisation staged through shared memory, written as TileLang's examples/norm
# layernorm is, for the GPU striped-runs test (tests/gpu/test_gpu_striped.cpp): X's rows and a
# per-column weight are copied into shared memory, T.Parallel loops read them into fragments
# and write the result back into the staging buffer, which one T.copy stores. The loops move
# their shared buffers a run at a time (8 bf16 or 4 fp32, 16 bytes; core/transform/
# lower_fragments_runs.cpp) while the fragments keep their runs for the reductions.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2, 3])
def staged_norm(M=256, N=1024, rows=2, threads=128, dtype="bfloat16"):
    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), W: T.Tensor((N,), dtype), Y: T.Tensor((M, N), dtype), Rstd: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, rows), threads=threads) as bx:
            X_s = T.alloc_shared((rows, N), dtype)
            W_s = T.alloc_shared((N,), dtype)
            x = T.alloc_fragment((rows, N), "float32")
            sq = T.alloc_fragment((rows, N), "float32")
            ss = T.alloc_fragment((rows,), "float32")
            T.copy(X[bx * rows, 0], X_s)
            T.copy(W, W_s)
            for i, j in T.Parallel(rows, N):
                x[i, j] = T.Cast("float32", X_s[i, j])
            for i, j in T.Parallel(rows, N):
                sq[i, j] = x[i, j] * x[i, j]
            T.reduce_sum(sq, ss, dim=1)
            for i in T.Parallel(rows):
                ss[i] = T.rsqrt(ss[i] / N + 1e-6)
                Rstd[bx * rows + i] = ss[i]
            for i, j in T.Parallel(rows, N):
                X_s[i, j] = T.Cast(dtype, x[i, j] * ss[i] * T.Cast("float32", W_s[j]) + (j % 7))
            T.copy(X_s, Y[bx * rows, 0])

    return main
