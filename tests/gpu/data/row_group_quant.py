# Per-row-group quantisation for the GPU striped-fragment test (tests/gpu/test_gpu_striped.cpp),
# written as a user would: each block takes `rows` rows of one 128-column group, scales each row
# by its absolute maximum into fp8 and also writes the row's mean. With 128 threads a block's
# rows x 128 fragment is one round of 8-element runs (16 threads a row), so both reductions
# take tp::reduce_striped's row-group path and both copies are vector accesses (8 fp8 bytes a
# run on the store).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1, 2, 3])
def row_group_quant(M=4096, N=1024, rows=8, dtype="float32", qtype="float8_e4m3", threads=128):
    group = 128

    @T.prim_func
    def main(X: T.Tensor((M, N), dtype), Q: T.Tensor((M, N), qtype), S: T.Tensor((M, N // group), "float32"),
             Mean: T.Tensor((M, N // group), "float32")):
        with T.Kernel(T.ceildiv(M, rows), N // group, threads=threads) as (bx, by):
            x = T.alloc_fragment((rows, group), dtype)
            xf = T.alloc_fragment((rows, group), "float32")
            amax = T.alloc_fragment((rows,), "float32")
            total = T.alloc_fragment((rows,), "float32")
            q = T.alloc_fragment((rows, group), qtype)
            T.copy(X[bx * rows, by * group], x)
            for i, j in T.Parallel(rows, group):
                xf[i, j] = x[i, j]
            T.reduce_absmax(xf, amax, dim=1)
            T.reduce_sum(xf, total, dim=1)
            for i, j in T.Parallel(rows, group):
                q[i, j] = T.clamp(xf[i, j] * (448.0 / T.max(amax[i], 1e-4)), -448.0, 448.0)
            for i in T.Parallel(rows):
                if bx * rows + i < M:  # the last block's rows past M
                    S[bx * rows + i, by] = T.max(amax[i], 1e-4) / 448.0
                    Mean[bx * rows + i, by] = total[i] / group
            T.copy(q, Q[bx * rows, by * group])

    return main
