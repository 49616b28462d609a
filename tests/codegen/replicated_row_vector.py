# Online softmax over column tiles: a row's running log-sum-exp is computed from replicated
# reduction results (an fp16 max, an fp32 sum), so every thread keeps the whole row vector and
# later tiles read it at any column.
# RUN: %tilec compile %s --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec run %s --device cpu --check | FileCheck --check-prefix=CPU %s
# CHECK: float lse[1];
# CHECK: half_t row_max[1];
# CHECK: tp::reduce_striped<1, 256, 128, 1, tp::ReduceOp::Max, true, 2>(&x[0], &row_max[0],
# CHECK: tp::reduce_striped<1, 256, 128, 1, tp::ReduceOp::Sum, true, 2>(&e[0], &row_sum[0],
# CHECK: lse[0] = {{.*}}row_max[0]{{.*}}lse[0]{{.*}}row_sum[0]
# CHECK: y[{{.*}}] = {{.*}}lse[0]
# CPU: check: softmax on `Y` {{.*}} PASS
#
# tileplay: kernel=online_softmax
# tileplay: args M=64 N=1024
# tileplay: baseline torch: softmax(X, -1)
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def online_softmax(M, N, block_N=256):
    log2e = 1.44269504

    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(M, threads=128) as bm:
            x = T.alloc_fragment((1, block_N), "float16")
            y = T.alloc_fragment((1, block_N), "float16")
            e = T.alloc_fragment((1, block_N), "float32")
            lse = T.alloc_fragment((1,), "float32")
            row_max = T.alloc_fragment((1,), "float16")
            row_sum = T.alloc_fragment((1,), "float32")
            T.fill(lse, -T.infinity("float32"))
            for t in T.serial(T.ceildiv(N, block_N)):
                T.copy(X[bm, t * block_N], x)
                T.reduce_max(x, row_max, dim=1)
                for i, j in T.Parallel(1, block_N):
                    e[i, j] = T.exp2(T.cast(x[i, j], "float32") * log2e - T.cast(row_max[i], "float32") * log2e)
                T.reduce_sum(e, row_sum, dim=1)
                for i in T.Parallel(1):
                    lse[i] = T.cast(row_max[i], "float32") * log2e + T.log2(T.exp2(lse[i] - T.cast(row_max[i], "float32") * log2e) + row_sum[i])
            for t in T.serial(T.ceildiv(N, block_N)):
                T.copy(X[bm, t * block_N], x)
                for i, j in T.Parallel(1, block_N):
                    y[i, j] = T.exp2(T.cast(x[i, j], "float32") * log2e - lse[i])
                T.copy(y, Y[bm, t * block_N])

    return main
