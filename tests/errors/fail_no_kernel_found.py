# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_no_kernel_found.py: error: no kernel found in `fail_no_kernel_found.py`; decorate a function with `@tilelang.jit` or `@T.prim_func` [NoKernelFound]
import tilelang
import tilelang.language as T


def helper(x):
    return x + 1
