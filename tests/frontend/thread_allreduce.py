# TVM's cross-thread reduction idiom (TileLang's gemv example): `with T.attr(T.comm_reducer(
# combiner, [identity]), "reduce_scope", ...)` around `T.tvm_thread_allreduce(1, value, True,
# out[0], ty)` combines value over the threads that differ only in ty; every thread gets the
# result. Staged as a shared slot per thread, one barrier and a fold in thread order.
# With 4 x 8 threads, value (tx + 1) * (ty + 1): S[tx] = 36 (tx + 1), M[tx] = 8 (tx + 1).
# RUN: %tilec compile %s --emit ir | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: %tilec compile %s --arch sm_80 --emit ptx -o %t.ptx
# RUN: not %tilec compile %s --emit ir -D outside=True 2>&1 | FileCheck --check-prefix=OUTSIDE %s
# RUN: not %tilec compile %s --emit ir -D other_key=True 2>&1 | FileCheck --check-prefix=KEY %s
# CHECK: tp_allreduce[ty * 4 + tx] = T.Cast("float32", (tx + 1) * (ty + 1))
# CHECK-NEXT: T.evaluate(T.__syncthreads())
# CHECK-NEXT: s[0] = 0.0
# CHECK-NEXT: for tp_ar1 in T.serial(8):
# CHECK-NEXT: s[0] = s[0] + tp_allreduce[tp_ar1 * 4 + tx]
# CHECK: tp_allreduce_1[ty * 4 + tx] = T.Cast("float32", (tx + 1) * (ty + 1))
# CHECK: m[0] = T.max(m[0], tp_allreduce_1[tp_ar1 * 4 + tx])
# CPU: output M: float32[4] mean=20 {{.*}} min=8 max=32
# CPU: output S: float32[4] mean=90 {{.*}} min=36 max=144
# OUTSIDE: thread_allreduce.py:[[@LINE+24]]:{{[0-9]+}}: error: {{.*}}`T.tvm_thread_allreduce` outside `with T.attr(T.comm_reducer(...), "reduce_scope", ...)`{{.*}} [UnsupportedConstruct]
# KEY: thread_allreduce.py:[[@LINE+17]]:{{[0-9]+}}: error: {{.*}}`T.attr` with key "pragma"{{.*}} [UnsupportedConstruct]
#
# tileplay: kernel=allreduce
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[0, 1])
def allreduce(X=4, R=8, outside=False, other_key=False):
    @T.prim_func
    def main(S: T.Tensor((X,), "float32"), M: T.Tensor((X,), "float32")):
        with T.Kernel(1, threads=(X, R)) as bx:
            tx = T.get_thread_binding(0)
            ty = T.get_thread_binding(1)
            s = T.alloc_local((1,), "float32")
            m = T.alloc_local((1,), "float32")
            key = "pragma" if other_key else "reduce_scope"
            with T.attr(T.comm_reducer(lambda x, y: x + y, [T.cast(0, "float32")]), key, T.reinterpret(T.uint64(0), dtype="handle")):
                T.evaluate(T.tvm_thread_allreduce(T.uint32(1), T.cast((tx + 1) * (ty + 1), "float32"), True, s[0], ty, dtype="handle"))
            with T.attr(T.comm_reducer(lambda x, y: T.max(x, y), [T.cast(-1e30, "float32")]), "reduce_scope",
                        T.reinterpret(T.uint64(0), dtype="handle")):
                T.evaluate(T.tvm_thread_allreduce(T.uint32(1), T.cast((tx + 1) * (ty + 1), "float32"), True, m[0], ty, dtype="handle"))
            if outside:
                T.evaluate(T.tvm_thread_allreduce(T.uint32(1), T.cast(tx, "float32"), True, m[0], ty, dtype="handle"))
            if ty == 0:
                S[tx] = s[0]
                M[tx] = m[0]

    return main
