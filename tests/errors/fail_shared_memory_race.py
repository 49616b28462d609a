# RUN: not %tilec run --device cpu --check-races %s 2>&1 | FileCheck %s
# Each thread writes its slot of `tile` and reads its neighbour's under one branch on the
# thread index: the compiler places no barrier inside such a branch, so thread 1 may read
# tile[0] before thread 0 has written it. The checker runs the block as its threads and
# reports the pair with both lines.
# CHECK: fail_shared_memory_race.py:[[@LINE+17]]:{{[0-9]+}}: error: write-read race on shared `tile` element [0] in block (0, 0, 0): thread 0 writes it at {{.*}}fail_shared_memory_race.py:[[@LINE+15]]:{{[0-9]+}}, then thread 1 reads it here with no barrier between them; a `T.sync_threads()` between the two accesses orders them (127 elements or blocks with these lines in all) [SharedMemoryRace]
# CHECK: fail_shared_memory_race.py:[[@LINE+14]]:{{[0-9]+}}: note: the other access: thread 0 writes `tile[0]` here
# CHECK: race check: 1 finding(s) in 1 block(s)
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def shift(N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding(0)
            tile = T.alloc_shared((N,), "float32")
            if tx < N:
                tile[tx] = A[tx] + 1.0
                if tx > 0:
                    B[tx] = tile[tx - 1]

    return main
