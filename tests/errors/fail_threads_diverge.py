# RUN: not %tilec run --device cpu %s 2>&1 | FileCheck %s
# A thread-level kernel runs each block as its threads on the interpreter. Half of them skip a
# barrier (the branch reads a per-thread local, so it is only found at run time): on the GPU
# the block would hang; the interpreter stops at the barrier's line instead.
# CHECK: fail_threads_diverge.py:[[@LINE+16]]:{{[0-9]+}}: error: thread 0 of the block waits at this barrier or block-wide tile op, but some threads have finished the kernel; every thread of the block must reach it (on the GPU the block would hang or run it short of threads) [ThreadsDiverge]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[0])
def diverge(N=128):
    @T.prim_func
    def main(B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding(0)
            mine = T.alloc_local((1,), "int32")
            tile = T.alloc_shared((N,), "float32")
            mine[0] = tx
            tile[tx] = T.cast(tx, "float32")
            if mine[0] < 64:
                T.sync_threads()
            B[tx] = tile[N - 1 - tx]

    return main
