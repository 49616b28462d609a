# RUN: not %tilec compile %s --arch sm_80 --emit cuda 2>&1 | FileCheck %s
# RUN: not %tilec compile %s --arch sm_90a --emit cuda 2>&1 | FileCheck %s
# RUN: %tilec run --device cpu-interp %s | FileCheck %s --check-prefix=CPU
# A T.gemm under `if tx < 128:` (a warp role split by hand) in a 256-thread block: the CUDA
# lowering partitions it over all 8 warps, so only half of it would run. It is refused at its
# line for the GPU; the interpreter runs the roles as threads.
# CHECK-NOT: `T.copy under
# CHECK: fail_gemm_under_thread_branch.py:[[@LINE+19]]:{{[0-9]+}}: error: `T.gemm under the branch on the thread index at line [[@LINE+16]]
# CPU: output C: float32[64, 64]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2])
def role_gemm(M=64, N=64, K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=256) as bx:
            tx = T.get_thread_binding()
            A_s = T.alloc_shared((M, K), "float16")
            B_s = T.alloc_shared((K, N), "float16")
            C_l = T.alloc_fragment((M, N), "float32")
            T.copy(B, B_s)
            if tx < 128:
                T.copy(A, A_s)
                T.clear(C_l)
                T.gemm(A_s, B_s, C_l)
                T.copy(C_l, C)

    return main
