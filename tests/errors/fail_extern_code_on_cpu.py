# A T.call_extern into the user's own CUDA (T.import_source) compiles for the GPU, but the CPU
# interpreter has no meaning for it: the run is refused at the call, not skipped.
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: not %tilec run --device cpu %s 2>&1 | FileCheck %s
# CHECK: fail_extern_code_on_cpu.py:[[@LINE+18]]:13: error: `T.call_extern` of `negate` runs device code the compiler does not read, so the CPU interpreter cannot run it; run the kernel on a GPU [ExternCodeOnCpu]
import tilelang
import tilelang.language as T

negate = """
__device__ void negate(float* x) { *x = -*x; }
"""


@tilelang.jit(out_idx=[-1])
def neg(N=32):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding()
            v = T.alloc_local((1,), "float32")
            T.import_source(negate)
            v[0] = A[tx]
            T.call_extern("handle", "negate", T.access_ptr(v[0], "rw"))
            B[tx] = v[0]

    return main
