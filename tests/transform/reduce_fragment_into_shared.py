# serial-reduce: T.reduce_* from a fragment into shared memory (TileLang allows any destination;
# deepseek_mhc's sinkhorn backward sums a [tile, n, n] fragment into [tile, n] shared rows). The
# fragment is copied into a shared tile of its shape and each destination element summed from
# there by a serial loop, for any rank of fragment; the interpreter and the JIT run that IR.
# RUN: %tilec compile %s --emit lowered --print-after=serial-reduce 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a -D rank=3 > /dev/null
# RUN: rm -rf %t && %tilec run %s --device cpu-interp --save-inputs %t/in --save-outputs %t/out > /dev/null
# RUN: python3 %S/../codegen/Inputs/npy_rowsum.py %t/in/X.npy %t/out/Y.npy | FileCheck --check-prefix=NPY %s
# RUN: rm -rf %t && %tilec run %s --device cpu --save-inputs %t/in --save-outputs %t/out > /dev/null
# RUN: python3 %S/../codegen/Inputs/npy_rowsum.py %t/in/X.npy %t/out/Y.npy | FileCheck --check-prefix=NPY %s
# CHECK-LABEL: IR after serial-reduce
# CHECK: x_red = T.alloc_shared((64, 32), "float32")
# CHECK: T.copy(x[0:64, 0:32], x_red[0:64, 0:32])
# CHECK-NEXT: for tp_i in T.Parallel(64):
# CHECK-NEXT: rows[tp_i] = x_red[tp_i, 0]
# CHECK-NEXT: for tp_r in T.serial(1, 32):
# CHECK-NEXT: rows[tp_i] = rows[tp_i] + x_red[tp_i, tp_r]
# NPY: ok 64
#
# tileplay: kernel=row_sums
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def row_sums(R=64, C=32, rank=2):
    shape = (R, C) if rank == 2 else (R // 8, 8, C)

    @T.prim_func
    def main(X: T.Tensor(shape, "float32"), Y: T.Tensor(shape[:-1], "float32")):
        with T.Kernel(1, threads=128) as bx:
            x = T.alloc_fragment(shape, "float32")
            rows = T.alloc_shared(shape[:-1], "float32")
            T.copy(X, x)
            T.reduce_sum(x, rows, dim=-1)
            T.copy(rows, Y)

    return main
