# CUDA brought in with T.import_source that NVRTC rejects is the user's code, not a compiler
# bug: an error at the import, carrying NVRTC's own messages.
# RUN: not %tilec compile %s --emit ptx --arch sm_80 2>&1 | FileCheck %s
# CHECK: fail_imported_source_rejected.py:[[@LINE+14]]:13: error: NVRTC rejected the CUDA of `T.import_source` or a `T.call_extern` into it: {{.*}}error: identifier "undeclared_thing" is undefined{{.*}} [ImportedSourceRejected]
import tilelang
import tilelang.language as T

broken = """
__device__ void negate(float* x) { *x = -undeclared_thing; }
"""


@tilelang.jit(out_idx=[-1])
def neg(N=32):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            T.import_source(broken)
            tx = T.get_thread_binding()
            v = T.alloc_local((1,), "float32")
            v[0] = A[tx]
            T.call_extern("handle", "negate", T.access_ptr(v[0], "rw"))
            B[tx] = v[0]

    return main
