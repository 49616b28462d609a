# T.sync_grid, a barrier of every block of the grid (TileLang's persistent MLA decode), at the
# top level of the kernel with no on-chip state across it: the kernel ends there and the code
# after it runs as a second launch of the same grid (eval/grid_sync.h), which every engine runs
# after the first has finished. B reads what the *next* block wrote to Part before the barrier;
# run as one launch block by block, block 0 would read block 1's part before block 1 ran. Ref
# computes the same from A directly, so B and Ref agree only if the barrier holds.
# RUN: %tilec compile %s --emit=ir --remarks 2>&1 | FileCheck --check-prefix=IR %s
# RUN: %tilec run %s --device cpu 2>&1 | FileCheck %s
# RUN: %tilec run %s --device cpu-interp 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_80 --emit=cuda 2>&1 | FileCheck --check-prefix=CUDA %s
# IR: sync_grid.py:29:13: remark: a cooperative launch for `T.sync_grid` not used: no on-chip state lives across the barrier; the kernel ends there and the code after it runs as a second launch of the same grid, which synchronises every block as the barrier does [FastPathNotTaken]
# IR-COUNT-3: T.Kernel(
# CHECK: output B: float32[256] [[STATS:.*]]
# CHECK: output Ref: float32[256] [[STATS]]
# CUDA-COUNT-3: __global__
#
# tileplay: kernel=two_phase
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def two_phase(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), Part: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32), Ref: T.Tensor((N,), T.float32)):
        with T.Kernel(N // 128, threads=128) as bx:
            for i in T.Parallel(128):
                Part[bx * 128 + i] = A[bx * 128 + i] * 2.0
            T.sync_grid()
            for i in T.Parallel(128):
                B[bx * 128 + i] = Part[(bx * 128 + i + 128) % N]
        with T.Kernel(N // 128, threads=128) as bx:
            for i in T.Parallel(128):
                Ref[bx * 128 + i] = A[(bx * 128 + i + 128) % N] * 2.0

    return main
