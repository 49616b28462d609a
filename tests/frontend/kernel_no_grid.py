# `T.Kernel()` with no grid extents launches one block, as TileLang's KernelLaunch (0 to 3
# extents) does; its threads default to 128. On the CPU the one block computes the whole output,
# and four extents stay an error.
# RUN: %tilec compile %s -k single --emit=ir | FileCheck %s
# CHECK: with T.Kernel(1, threads=128) as
# RUN: %tilec run --device cpu %s -k single | FileCheck %s --check-prefix=CPU
# CPU: output B: float32[64] mean=31.5 {{.*}} min=0 max=63
# CPU: 1 blocks
# RUN: %tilec compile %s -k single --arch sm_80 --emit cuda | FileCheck %s --check-prefix=CUDA
# CUDA: __launch_bounds__(128
# RUN: not %tilec compile %s -k four --emit=ir 2>&1 | FileCheck %s --check-prefix=FOUR
# FOUR: kernel_no_grid.py:[[#@LINE+17]]:{{[0-9]+}}: error: invalid `T.Kernel` launch: expected at most 3 grid extents, got 4 [BadKernelLaunch]
import tilelang
import tilelang.language as T


@tilelang.jit
def single():
    B = T.empty((64,), T.float32)
    with T.Kernel():
        for i in T.Parallel(64):
            B[i] = T.cast(i, T.float32)
    return B


@tilelang.jit
def four(A):
    A: T.Tensor((64,), T.float32)
    with T.Kernel(1, 1, 1, 1):
        for i in T.Parallel(64):
            A[i] = A[i] * 2.0
