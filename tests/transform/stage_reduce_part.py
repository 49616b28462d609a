# stage-fragments: two T.reduce_sum into one row vector from accumulators on different warp grids
# (FullRow: 4x1 warps; Square: 2x2) would give the vector two row layouts. The second reduces
# into a part of its own, folded in by a T.Parallel loop, whose read of the part (the other
# layout) goes through a shared copy in the next round. Both targets compile it.
# RUN: %tilec compile %s --emit lowered --print-after=stage-fragments --arch sm_80 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit lowered --arch sm_80 --remarks 2>&1 | FileCheck --check-prefix=REMARK %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# REMARK: remark: a reduction into `rows` in place not used: another reduction gives it the rows of a different warp grid; it reduces into `rows_part` and adds that in [FastPathNotTaken]
# CHECK-LABEL: IR after stage-fragments
# CHECK: rows_part = T.alloc_fragment((64,), "float32")
# CHECK: T.reduce_sum(a, rows, dim=1, clear=True)
# CHECK: T.reduce_sum(b, rows_part, dim=1, clear=True)
# CHECK: rows[tp_i] = rows[tp_i] + rows_part_stage[tp_i]
# CPU: output R: float32[64]
#
# tileplay: kernel=two_row_sums
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def two_row_sums(M=64, N=64, K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), R: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            a_s = T.alloc_shared((M, K), "float16")
            b_s = T.alloc_shared((K, N), "float16")
            a = T.alloc_fragment((M, N), "float32")
            b = T.alloc_fragment((M, N), "float32")
            rows = T.alloc_fragment((M,), "float32")
            T.copy(A, a_s)
            T.copy(B, b_s)
            T.gemm(a_s, b_s, a, clear_accum=True, policy=T.GemmWarpPolicy.FullRow)
            T.gemm(a_s, b_s, b, clear_accum=True)
            T.reduce_sum(a, rows, dim=1)
            T.reduce_sum(b, rows, dim=1, clear=False)
            T.copy(rows, R)

    return main
