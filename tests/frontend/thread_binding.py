# T.thread_binding(0, n, thread="threadIdx.y") names the kernel's thread index along one axis
# (TileLang's thread-level TIR; TVM's short form T.thread_binding(n, "threadIdx.x") too), the
# same index T.get_thread_binding(dim) reads. Its range must be that axis's own extent.
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: not %tilec compile %s --emit cuda --arch sm_80 -D cols=16 2>&1 | FileCheck --check-prefix=ERR %s
# CHECK: const int tx = threadIdx.x;
# CHECK: const int ty = threadIdx.y;
# CHECK: B[((ty * 32) + tx)] = (A[((ty * 32) + tx)] * 2.0f);
# ERR: thread_binding.py:[[@LINE+13]]:{{[0-9]+}}: error: `T.thread_binding` must span the kernel's threadIdx.y extent [TypeMismatch]
#
# tileplay: kernel=scale
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(rows=4, cols=4):
    @T.prim_func
    def main(A: T.Tensor((rows * 32,), "float32"), B: T.Tensor((rows * 32,), "float32")):
        with T.Kernel(1, threads=(32, rows)) as bx:
            tx = T.thread_binding(32, "threadIdx.x")
            ty = T.thread_binding(0, cols, thread="threadIdx.y")
            B[ty * 32 + tx] = A[ty * 32 + tx] * 2.0

    return main
