# A kernel written at thread level runs each block as its threads on the CPU interpreter: each
# thread has its own thread index and locals, shared memory is the block's, __syncthreads is a
# barrier of the threads, and tile ops and T.Parallel loops run once for the block. Here the
# threads reverse a tile through shared memory (B = 127 - i), then a T.Parallel loop doubles
# the tile that a block-wide T.copy filled (C = 2 A), then each thread adds its index (+ i).
# E reverses a second tile without a T.sync_threads: the threads get the barrier the compiler
# places between one thread's shared write and another's read, as on the GPU.
# RUN: %tilec run %s --device cpu 2>&1 | FileCheck %s
# RUN: %tilec run %s --device cpu --threads 2 -D blocks=3 2>&1 | FileCheck %s
# The race checker passes it: the compiler's barrier orders E's exchange as the explicit one does B's.
# RUN: %tilec run %s --device cpu --check-races --threads 2 -D blocks=3 2>&1 | FileCheck %s --check-prefix=RACES
# RACES-NOT: error:
# RACES: race check: 0 finding(s) in 3 block(s); checked shared-memory races (each block run as its threads)
# CHECK-NOT: warning
# CHECK: output B: float32[128] mean=63.5 {{.*}} min=0 max=127
# CHECK: output D: float32[128] mean=63.5 {{.*}} min=0 max=127
# CHECK: output E: float32[128] mean=63.5 {{.*}} min=0 max=127
#
# tileplay: kernel=reverse
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1, 2, 3])
def reverse(N=128, blocks=1):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), D: T.Tensor((N,), "float32"),
             E: T.Tensor((N,), "float32")):
        with T.Kernel(blocks, threads=N) as bx:
            tx = T.get_thread_binding(0)
            tile = T.alloc_shared((N,), "float32")
            a = T.alloc_shared((N,), "float32")
            mine = T.alloc_local((1,), "float32")
            tile[tx] = T.cast(tx, "float32")
            T.sync_threads()
            mine[0] = tile[N - 1 - tx]
            B[tx] = mine[0]
            T.copy(A, a)
            for i in T.Parallel(N):
                a[i] = a[i] * 2.0
            D[tx] = a[tx] - A[tx] * 2.0 + T.cast(tx, "float32")
            other = T.alloc_shared((N,), "float32")
            other[tx] = T.cast(tx, "float32")
            E[tx] = other[N - 1 - tx]

    return main
