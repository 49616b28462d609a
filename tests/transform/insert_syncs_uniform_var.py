# RUN: %tilec compile %s --arch sm_80 -k persistent -o %t.cu && FileCheck %s --check-prefix=UNIFORM < %t.cu
# RUN: %tilec run %s --device cpu --check-races -k persistent 2>&1 | FileCheck %s --check-prefix=CLEAN
# RUN: %tilec compile %s --arch sm_80 -k per_thread -o %t.pt.cu && FileCheck %s --check-prefix=DIVERGENT < %t.pt.cu
# A persistent loop over tiles, `while tile < n` on a T.alloc_var that every thread sets from
# the block index and steps alike: the loop is the same in every thread, so insert_syncs
# places barriers inside it (the copy into `s` is read by other threads' copy out, and the
# next trip's copy overwrites what they read). The variable used to count as per-thread
# storage, which made the whole loop one step with no barrier in it: a race on the GPU.
# UNIFORM: while ((tile < 8))
# UNIFORM: __syncthreads();
# UNIFORM: __syncthreads();
# CLEAN: race check: 0 finding(s)
# A variable stored from the thread index is per-thread: a loop on it stays one step, and no
# barrier is placed inside it (threads could leave it at different trips).
# DIVERGENT: while ((
# DIVERGENT-NOT: __syncthreads
# DIVERGENT: }
import tilelang.language as T


def persistent(n_tiles=8, grid=2, threads=64):
    @T.prim_func
    def main(A: T.Tensor((n_tiles, 64), "float32"), B: T.Tensor((n_tiles, 64), "float32")):
        with T.Kernel(grid, threads=threads) as bx:
            s = T.alloc_shared((64,), "float32")
            tile = T.alloc_var(T.int32)
            tile = bx
            while tile < n_tiles:
                T.copy(A[tile, 0:64], s)
                for i in T.Parallel(64):
                    B[tile, i] = s[63 - i] * 2.0
                tile = tile + grid

    return main


def per_thread(threads=64):
    @T.prim_func
    def main(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=threads) as bx:
            s = T.alloc_shared((64,), "float32")
            tx = T.get_thread_binding()
            k = T.alloc_var(T.int32)
            k = tx
            while k < 64:
                s[k] = A[k]
                B[k] = s[k]
                k = k + threads

    return main
