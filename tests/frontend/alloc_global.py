# T.alloc_global: a global-memory workspace declared in the kernel function. It becomes a
# parameter after the signature's (out_idx=[-1] still names B), which the runner allocates
# zeroed, as it does outputs; the first launch writes it and the second reads it (flash
# decoding's split-K partials). Inside `T.Kernel`, or in another scope, it is refused.
# RUN: %tilec compile %s --emit cuda | FileCheck %s
# RUN: rm -rf %t && %tilec run %s --device cpu-interp --save-inputs %t/in --save-outputs %t/out | FileCheck --check-prefix=CPU %s
# RUN: python3 %S/../codegen/Inputs/npy_affine.py %t/in/A.npy %t/out/B.npy 2 1
# RUN: rm -rf %t && %tilec run %s --device cpu --save-inputs %t/in --save-outputs %t/out > /dev/null
# RUN: python3 %S/../codegen/Inputs/npy_affine.py %t/in/A.npy %t/out/B.npy 2 1
# RUN: not %tilec compile %s -D where=kernel 2>&1 | FileCheck --check-prefix=INSIDE %s
# RUN: not %tilec compile %s -D where=shared 2>&1 | FileCheck --check-prefix=SCOPE %s
# CHECK: flashy_kernel_0(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ partial)
# CHECK: partial[{{.*}}] = (A[{{.*}}] * 2.0f);
# CHECK: flashy_kernel_1(const float* __restrict__ A, float* __restrict__ B, const float* __restrict__ partial)
# CPU: output B: float32[256]
# CPU: output partial: float32[256]
# INSIDE: alloc_global.py:[[@LINE+17]]:{{[0-9]+}}: error: `T.alloc_global` is not supported inside a kernel; call it in the kernel function body before `with T.Kernel` [UnsupportedConstruct]
# SCOPE: alloc_global.py:[[@LINE+12]]:{{[0-9]+}}: error: `T.alloc_global with scope "shared"` is not supported inside a kernel; use T.alloc_shared or T.alloc_local [UnsupportedConstruct]
#
# tileplay: kernel=flashy
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def flashy(n=256, where="body"):
    @T.prim_func
    def main(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        if where == "shared":
            T.alloc_global((n,), "float32", scope="shared")
        partial = T.alloc_global((n,), "float32")
        with T.Kernel(n // 128, threads=128) as bx:
            if where == "kernel":
                T.alloc_global((n,), "float32")
            for i in T.Parallel(128):
                partial[bx * 128 + i] = A[bx * 128 + i] * 2.0
        with T.Kernel(n // 128, threads=128) as bx:
            for i in T.Parallel(128):
                B[bx * 128 + i] = partial[bx * 128 + i] + 1.0

    return main
