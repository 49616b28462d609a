# layout-inference: a row reduction of a striped tile whose runs stay in one row keeps each row's
# result in that row's threads (FragLayout::StripedRow), not in every thread. 8 x 128 rows on
# 128 threads in runs of 8 (copied from global memory): 16 threads a row, one round, so `amax`
# and the `scale` computed from it are one register a thread; the reduction shuffles within the
# row's 16 lanes (no shared scratch, no barrier); the element loop reads `scale` at its round;
# the store of the row's scale is made by one of the row's threads. On 32 threads the fp8 store's
# 16-element runs are taken and a round holds four rows: two rounds, two registers. `peek` reads the row vector at a fixed index in serial code, which
# only a replicated vector serves, so its reduction stays replicated.
# RUN: %tilec compile %s -k row_scale --print-after=layout-inference 2>&1 | FileCheck %s
# RUN: %tilec compile %s -k row_scale -D threads=32 --print-after=layout-inference 2>&1 | FileCheck %s --check-prefix=TWO
# RUN: %tilec compile %s -k row_scale --emit cuda --arch sm_90a | FileCheck %s --check-prefix=CUDA
# RUN: %tilec compile %s -k peek --print-after=layout-inference 2>&1 | FileCheck %s --check-prefix=PEEK
# RUN: %tilec compile %s -k row_scale --emit ptx --arch sm_89 > /dev/null
# RUN: %tilec compile %s -k row_scale -D threads=32 --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s -k row_scale --device cpu-interp | FileCheck %s --check-prefix=CPU
# CHECK-LABEL: IR after layout-inference
# CHECK-DAG: amax = T.alloc_local((1,), "float32")
# CHECK-DAG: scale = T.alloc_local((1,), "float32")
# CHECK-NOT: tp_reduce_scratch
# CHECK: tp::reduce_striped_rows<8, 128, 128, 8, tp::ReduceOp::AbsMax, true>
# CHECK: i = (tp_s * 1024 + tx * 8) // 128
# CHECK: scale[tp_s] = T.max(amax[tp_s], {{.*}}) / 448.0
# CHECK: q[tp_r] = T.Cast("float8_e4m3", T.min(T.max(x[tp_r] / scale[tp_r // 8], -448.0), 448.0))
# CHECK: if tx % 16 == 0:
# CHECK-NEXT: S[bx * 8 + i, by] = scale[tp_s]
# TWO-DAG: amax = T.alloc_local((2,), "float32")
# TWO: tp::reduce_striped_rows<8, 128, 32, 16, tp::ReduceOp::AbsMax, true>
# TWO: i = (tp_s * 512 + tx * 16) // 128
# CUDA: tp::reduce_striped_rows<8, 128, 128, 8, tp::ReduceOp::AbsMax, true>(&x[0], &amax[0]);
# CUDA-NOT: __shared__
# PEEK-LABEL: IR after layout-inference
# PEEK: amax = T.alloc_local((8,), "float32")
# PEEK: tp::reduce_striped<8, 256, 128, 1, tp::ReduceOp::AbsMax, true, 4>
# CPU: output S: float32[64, 2]
#
# tileplay: kernel=row_scale
# tileplay: args M=64 N=256
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1, 2])
def row_scale(M=64, N=256, rows=8, threads=128):
    group = 128

    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Q: T.Tensor((M, N), "float8_e4m3"), S: T.Tensor((M, N // group), "float32")):
        with T.Kernel(T.ceildiv(M, rows), N // group, threads=threads) as (bx, by):
            x = T.alloc_fragment((rows, group), "float32")
            amax = T.alloc_fragment((rows,), "float32")
            scale = T.alloc_fragment((rows,), "float32")
            q = T.alloc_fragment((rows, group), "float8_e4m3")
            T.copy(X[bx * rows, by * group], x)
            T.reduce_absmax(x, amax, dim=1)
            for i in T.Parallel(rows):
                scale[i] = T.max(amax[i], 1e-4) / 448.0
            for i, j in T.Parallel(rows, group):
                q[i, j] = T.clamp(x[i, j] / scale[i], -448.0, 448.0)
            for i in T.Parallel(rows):
                S[bx * rows + i, by] = scale[i]
            T.copy(q, Q[bx * rows, by * group])

    return main


@tilelang.jit(out_idx=[1])
def peek(M=64, N=128, rows=8):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, rows), threads=128) as bx:
            x = T.alloc_fragment((rows, N), "float32")
            amax = T.alloc_fragment((rows,), "float32")
            T.copy(X[bx * rows, 0], x)
            T.reduce_absmax(x, amax, dim=1)
            for i, j in T.Parallel(rows, N):
                x[i, j] = x[i, j] / amax[0]
            T.copy(x, Y[bx * rows, 0])

    return main
