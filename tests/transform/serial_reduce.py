# T.reduce_* from a shared tile has no register-level reduction here: it becomes a T.Parallel
# nest over the destination with a serial loop along the reduced dim (the first element starts a
# clearing reduction) and compiles for both targets; the interpreter runs the op itself.
# RUN: %tilec compile %s --print-after=serial-reduce --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: IR after serial-reduce
# CHECK: for tp_i in T.Parallel(64)
# CHECK-NEXT: row_sum[tp_i] = x_shared[tp_i, 0]
# CHECK-NEXT: for tp_r in T.serial(1, 128)
# CHECK-NEXT: row_sum[tp_i] = row_sum[tp_i] + x_shared[tp_i, tp_r]
# CHECK: for tp_i in T.Parallel(128)
# CHECK: col_max[tp_i] = T.max(col_max[tp_i], T.abs(x_shared[tp_r, tp_i]))
# CPU: output Y: float32[256]
#
# tileplay: kernel=row_sum
# tileplay: args M=256 N=128
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def row_sum(M, N, block_M=64):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x_shared = T.alloc_shared((block_M, N), "float32")
            row_sum = T.alloc_fragment((block_M,), "float32")
            col_max = T.alloc_fragment((N,), "float32")
            T.copy(X[bx * block_M, 0], x_shared)
            T.reduce_sum(x_shared, row_sum, dim=1)
            T.fill(col_max, 0)
            T.reduce_absmax(x_shared, col_max, dim=0, clear=False)
            T.copy(row_sum, Y[bx * block_M])

    return main
