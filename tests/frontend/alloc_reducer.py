# T.alloc_reducer (TileLang's gemv_alloc_reducer): a fragment a T.Parallel nest accumulates
# into along a dimension that does not index it. The nest's variables that do not index the
# reducer run serially inside the others, so each element is summed by one thread in order;
# T.finalize_reducer has nothing left to combine. O1 (through the reducer) and O2 (written out
# by hand the same way) must agree; the same kernel compiles for sm_80 and sm_90a.
# RUN: %tilec compile %s --emit ir | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: %tilec compile %s --arch sm_80 --emit ptx -o %t.ptx
# RUN: %tilec compile %s --arch sm_90a --emit ptx -o %t.ptx
# RUN: not %tilec compile %s --emit ir -D bad_op=True 2>&1 | FileCheck --check-prefix=OP %s
# RUN: not %tilec compile %s --emit ir -D not_reducer=True 2>&1 | FileCheck --check-prefix=FIN %s
# CHECK: for i in T.Parallel(64):
# CHECK-NEXT: for j in T.serial(64):
# CHECK-NEXT: red[i] = red[i] + T.Cast("float32", a[i, j] * x[j])
# CPU: output O1: float32[128] [[STATS:.*]]
# CPU: output O2: float32[128] [[STATS]]
# OP: alloc_reducer.py:[[@LINE+13]]:{{[0-9]+}}: error: {{.*}}`T.alloc_reducer` op must be "sum", "max" or "min", got "prod"{{.*}} [TypeMismatch]
# FIN: alloc_reducer.py:[[@LINE+26]]:{{[0-9]+}}: error: {{.*}}`T.finalize_reducer` expects a buffer from T.alloc_reducer, got `acc`{{.*}} [TypeMismatch]
#
# tileplay: kernel=gemv
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def gemv(M=128, N=128, block_M=64, block_N=64, bad_op=False, not_reducer=False):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), X: T.Tensor((N,), "float16"), O1: T.Tensor((M,), "float32"), O2: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bm:
            red = T.alloc_reducer(block_M, "float32", op="prod" if bad_op else "sum", replication="all")
            acc = T.alloc_fragment((block_M,), "float32")
            a = T.alloc_fragment((block_M, block_N), "float16")
            x = T.alloc_fragment((block_N,), "float16")
            T.clear(red)
            T.clear(acc)
            for bn in T.serial(T.ceildiv(N, block_N)):
                T.copy(A[bm * block_M, bn * block_N], a)
                T.copy(X[bn * block_N], x)
                for i, j in T.Parallel(block_M, block_N):
                    red[i] += a[i, j] * x[j]
                for i in T.Parallel(block_M):
                    for j in T.serial(block_N):
                        acc[i] += a[i, j] * x[j]
            T.finalize_reducer(acc if not_reducer else red)
            T.copy(red, O1[bm * block_M])
            T.copy(acc, O2[bm * block_M])

    return main
