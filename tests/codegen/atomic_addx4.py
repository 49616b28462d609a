# T.atomic_addx4 / T.atomic_addx2: a run of 4 (2) elements along the last dimension of `value`
# added into `dst`, each element atomically. Block b adds its row (b*8 + j + 1 for column j) into
# Out and Half, so both hold the column sums 52 + 4j (52, 56, ..., 80); the CUDA shows one
# atomicAdd per element.
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: tp::atomic_add(&Out[(tx * 4)], row[(tx * 4)]);
# CHECK: tp::atomic_add(&Out[((tx * 4) + 3)], row[((tx * 4) + 3)]);
# CHECK: tp::atomic_add(&Half[((tx * 2) + 1)], row[((tx * 2) + 1)]);
# CPU: output Half: float32[8] mean=66 {{.*}} min=52 max=80
# CPU: output Out: float32[8] mean=66 {{.*}} min=52 max=80
#
# tileplay: kernel=row_sum
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def row_sum(rows=4, cols=8):
    @T.prim_func
    def main(Out: T.Tensor((cols,), "float32"), Half: T.Tensor((cols,), "float32")):
        with T.Kernel(rows, threads=32) as bx:
            row = T.alloc_shared((cols,), "float32")
            for j in T.Parallel(cols):
                row[j] = T.cast(bx * cols + j + 1, "float32")
            for i in T.Parallel(cols // 4):
                T.atomic_addx4(Out[i * 4], row[i * 4])
            for i in T.Parallel(cols // 2):
                T.atomic_addx2(Half[i * 2 : i * 2 + 2], row[i * 2 : i * 2 + 2])

    return main
