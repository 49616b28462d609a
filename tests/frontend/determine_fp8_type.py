# tilelang.language.fp8.determine_fp8_type: the platform's fp8 dtype, e4m3fn (or e5m2 when
# asked) on CUDA, the only platform here (TileLang answers the FNUZ variants on ROCm). A name of
# that module T does not define (determine_torch_fp8_type, host code) stays a host object and is
# an error only where a kernel uses it; importing it used to bind T itself.
# RUN: %tilec compile %s --emit ir | FileCheck %s
# RUN: %tilec compile %s --emit ir -D fmt=e5m2 | FileCheck --check-prefix=E5 %s
# RUN: not %tilec compile %s --emit ir -D fmt=e3m4 2>&1 | FileCheck --check-prefix=BAD %s
# RUN: not %tilec compile %s --emit ir -D use_torch_type=True 2>&1 | FileCheck --check-prefix=HOST %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: A: T.Tensor((64,), "float8_e4m3")
# E5: A: T.Tensor((64,), "float8_e5m2")
# BAD: determine_fp8_type.py:[[@LINE+12]]:{{[0-9]+}}: error: `raise` at trace time: ValueError: Unsupported FP8 format: e3m4 [PythonException]
# HOST: determine_fp8_type.py:[[@LINE+13]]:{{[0-9]+}}: error: `tilelang.language.fp8.determine_torch_fp8_type` is not supported inside a kernel; it is host code the kernel evaluator does not run [UnsupportedConstruct]
# CPU: output B: float32[64]
#
# tileplay: kernel=upcast
import tilelang
import tilelang.language as T
from tilelang.language.fp8 import determine_fp8_type, determine_torch_fp8_type


@tilelang.jit(out_idx=[-1])
def upcast(n=64, fmt="e4m3", use_torch_type=False):
    dtype = determine_fp8_type(fmt)
    if use_torch_type:
        dtype = determine_torch_fp8_type()

    @T.prim_func
    def main(A: T.Tensor((n,), dtype), B: T.Tensor((n,), T.float32)):
        with T.Kernel(1, threads=64) as bx:
            for i in T.Parallel(n):
                B[i] = T.cast(A[i], T.float32)

    return main
