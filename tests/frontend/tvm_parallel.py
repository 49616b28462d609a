# TVM's one-dimensional T.parallel(n | start, stop): TileLang's T.Parallel(a, b) is a nest of
# such loops, so two nested T.parallel loops stage the same parallel nest (and spread over the
# block's threads the same way), and the CPU run computes the same tile.
# RUN: %tilec compile %s --emit ir | FileCheck --check-prefix=IR %s
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# IR: for i, j in T.Parallel(4, 30):
# IR-NEXT: B[i, j + 2 - 2] = i * 100 + (j + 2)
# CHECK: B[((i * 30) + j)] = ((i * 100) + (j + 2));
# CPU: output B: int32[4, 30] mean=166.5 {{.*}} min=2 max=331
#
# tileplay: kernel=fill
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def fill(rows=4, cols=30):
    @T.prim_func
    def main(B: T.Tensor((rows, cols), "int32")):
        with T.Kernel(1, threads=128) as bx:
            for i in T.parallel(rows):
                for j in T.parallel(2, cols + 2):
                    B[i, j - 2] = i * 100 + j

    return main
