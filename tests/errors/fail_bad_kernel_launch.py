# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_bad_kernel_launch.py:10:41: error: invalid `T.Kernel` launch: 2 grid dimension(s) but 3 block index name(s) [BadKernelLaunch]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, 2, threads=128) as (bx, by, bz):
        T.clear(A)
