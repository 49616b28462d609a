# RUN: not %tilec run --device cpu-interp %s 2>&1 | FileCheck %s
# Roles split by hand run as threads on the interpreter; here the consumer waits for a tile the
# producer only loads after the consumer frees the slot (the producer's first wait has the
# parity of a phase nobody completes), so every thread waits: a deadlock, stopped at the first
# waiting thread's wait instead of hanging as the GPU would.
# CHECK: fail_mbarrier_deadlock.py:[[@LINE+15]]:{{[0-9]+}}: error: wait on mbarrier `full[0]` for parity 0 in block (0, 0, 0) never completes: it has completed 0 phase(s) and holds 0 of the 32 arrivals that complete the next, and every thread that could still arrive waits too or has finished; on the GPU the block would hang [MbarrierDeadlock]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1])
def deadlock(N=32):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=2 * N) as bx:
            tile = T.alloc_shared((N,), "float32")
            full = T.alloc_barrier(arrive_count=N)
            empty = T.alloc_barrier(arrive_count=N)
            tx = T.get_thread_binding()
            if tx < N:
                T.barrier_wait(full, 0)
                B[tx] = tile[tx]
                T.barrier_arrive(empty)
            else:
                T.barrier_wait(empty, 0)
                tile[tx - N] = A[tx - N]
                T.barrier_arrive(full)

    return main
