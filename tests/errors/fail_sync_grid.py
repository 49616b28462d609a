# T.sync_grid ends the launch and runs the code after it as a second launch of the same grid
# (eval/grid_sync.h), so on-chip state cannot cross it: `acc` is written before the barrier and
# read after it, which the second launch would read uninitialised. A barrier inside a loop (or
# branch) cannot be a launch boundary at all, and `first`, read from A before the barrier (which
# the first part then writes), cannot be re-read after it. All are refused at the barrier's line.
# RUN: not %tilec compile %s -k live_across --emit=ir 2>&1 | FileCheck --check-prefix=LIVE %s
# RUN: not %tilec compile %s -k in_loop --emit=ir 2>&1 | FileCheck --check-prefix=LOOP %s
# RUN: not %tilec compile %s -k let_across --emit=ir 2>&1 | FileCheck --check-prefix=LET %s
# LIVE: fail_sync_grid.py:25:13: error: `T.sync_grid with `acc` used on both sides of it` is not supported inside a kernel; TilePlay runs the code after a grid barrier as a second launch of the same grid, where on-chip memory starts afresh: pass the value through a global tensor (T.alloc_global), or allocate separate buffers for each side [UnsupportedConstruct]
# LET: fail_sync_grid.py:53:13: error: `T.sync_grid with `first` read from memory before it and used after it` is not supported inside a kernel; {{.*}} [UnsupportedConstruct]
# LOOP: fail_sync_grid.py:40:17: error: `T.sync_grid` is not supported inside a kernel inside a loop or branch; TilePlay ends the launch at a grid barrier and runs the code after it as a second launch, so the barrier must sit at the top level of the `T.Kernel` body [UnsupportedConstruct]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def live_across(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), Part: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(N // 128, threads=128) as bx:
            acc = T.alloc_fragment((128,), T.float32)
            for i in T.Parallel(128):
                acc[i] = A[bx * 128 + i] * 2.0
                Part[bx * 128 + i] = acc[i]
            T.sync_grid()
            for i in T.Parallel(128):
                B[bx * 128 + i] = Part[(bx * 128 + i + 128) % N] + acc[i]

    return main


@tilelang.jit(out_idx=[-1])
def in_loop(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(N // 128, threads=128) as bx:
            for r in T.serial(2):
                for i in T.Parallel(128):
                    B[bx * 128 + i] = A[bx * 128 + i] * r
                T.sync_grid()

    return main


@tilelang.jit(out_idx=[-1])
def let_across(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(N // 128, threads=128) as bx:
            first = A[bx * 128]
            for i in T.Parallel(128):
                A[bx * 128 + i] = A[bx * 128 + i] * 2.0
            T.sync_grid()
            for i in T.Parallel(128):
                B[bx * 128 + i] = A[(bx * 128 + i + 128) % N] + first

    return main
