# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_tile_op_outside_kernel.py:10:5: error: `T.clear` must be called inside a `with T.Kernel(...)` block [TileOpOutsideKernel]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    T.clear(A)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
