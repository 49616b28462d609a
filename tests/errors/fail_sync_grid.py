# T.sync_grid, a barrier of every block of the grid (TileLang's persistent MLA decode): blocks
# run independently here (on the CPU one by one, and sampled for checks), so the barrier is
# refused with what to do instead rather than dropped.
# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_sync_grid.py:17:13: error: `T.sync_grid` is not supported inside a kernel; a grid-wide barrier needs all blocks resident at once (a cooperative launch) and TilePlay runs blocks independently; end the kernel at the barrier and put the work after it in a second kernel [UnsupportedConstruct]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def two_phase(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), Part: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(N // 128, threads=128) as bx:
            for i in T.Parallel(128):
                Part[bx * 128 + i] = A[bx * 128 + i] * 2.0
            T.sync_grid()
            for i in T.Parallel(128):
                B[bx * 128 + i] = Part[(bx * 128 + i + 128) % N]

    return main
