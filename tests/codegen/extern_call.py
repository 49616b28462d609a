# The user's own device code: T.import_source puts it before the kernel, once, and
# T.call_extern calls it with pointers (a whole buffer with T.access_ptr, or `A[i]`). T.dp4a is
# plain int32 arithmetic, so the interpreter runs it; an extern call it cannot run is refused at
# its line (errors/fail_extern_code_on_cpu.py). NVRTC's errors in imported code are the
# user's, at the import (errors/fail_imported_source_rejected.py).
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu -k dot4 | FileCheck --check-prefix=CPU %s
# CHECK: typedef unsigned int uint;
# CHECK: __device__ void add_one(T *x, const int n) {
# CHECK-NOT: __device__ void add_one
# CHECK: __device__ float twice(float v)
# CHECK: add_one((&X_local[0]), 4);
# CHECK: add_one((&X_local[2]), 1);
# CHECK: Out[(tx * 2)] = twice(X_local[0]);
# CPU: output C: int32[4] mean=34.5 rms=36.63 min=18 max=51
import tilelang
import tilelang.language as T

add_one = """
template <typename T>
__device__ void add_one(T *x, const int n) {
    for (int i = 0; i < n; ++i) x[i] += 1;
}
"""

twice = """
__device__ float twice(float v) { return 2.0f * v; }
"""


@tilelang.jit(out_idx=[-1])
def bump(N=64):
    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Out: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N // 2) as bx:
            tx = T.get_thread_binding()
            X_local = T.alloc_local((4,), "float32")
            T.import_source(add_one)
            T.import_source(add_one)
            for i in T.serial(2):
                X_local[i] = X[tx * 2 + i]
            T.call_extern("handle", "add_one", T.access_ptr(X_local, "w"), 4)
            T.import_source(twice)
            T.call_extern("add_one", T.access_ptr(X_local[2], "rw"), 1, dtype="handle")
            Out[tx * 2] = T.call_extern("float32", "twice", X_local[0])
            Out[tx * 2 + 1] = X_local[1]

    return main


@tilelang.jit(out_idx=[-1])
def dot4(N=4):
    @T.prim_func
    def main(C: T.Tensor((N,), "int32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding()
            a = T.alloc_local((4,), "int8")
            b = T.alloc_local((4,), "int8")
            acc = T.alloc_local((1,), "int32")
            for i in T.serial(4):
                a[i] = i + 1
                b[i] = tx + 1
            acc[0] = tx + 8
            T.dp4a(a[0], b[0], acc[0])
            C[tx] = acc[0]

    return main
