# The race checker (`tilec run --device cpu --check-races`) on small planted kernels, one per
# class, each reported with both DSL lines, the buffer, the element and the two threads; and
# the same kernels written correctly, which it must pass.
#
# Write-write: every thread stores its own value into last[0].
# RUN: not %tilec run %s --device cpu --check-races -k ww 2>&1 | FileCheck %s --check-prefix=WW
# WW: race_checker.py:[[@LINE+40]]:{{[0-9]+}}: error: write-write race on shared `last` element [0] in block (0, 0, 0): thread 0 writes it at {{.*}}race_checker.py:[[@LINE+40]]:{{[0-9]+}}, then thread 1 writes it here
# WW: race check: 1 finding(s) in 1 block(s)
#
# Read-write: a shift in place under a branch on the thread index (no barrier inside it).
# RUN: not %tilec run %s --device cpu --check-races -k rw 2>&1 | FileCheck %s --check-prefix=RW
# RW: race_checker.py:[[@LINE+52]]:{{[0-9]+}}: error: read-write race on shared `tile` element [1] in block (0, 0, 0): thread 0 reads it at {{.*}}race_checker.py:[[@LINE+52]]:{{[0-9]+}}, then thread 1 writes it here
# RW: race check: 1 finding(s)
#
# A T.Parallel iteration reads what the next iteration (the next thread) writes: a race inside
# one step of a tile-level kernel, with iterations on the threads bind_threads deals them to.
# RUN: not %tilec run %s --device cpu --check-races -k parallel 2>&1 | FileCheck %s --check-prefix=PAR
# PAR: race_checker.py:[[@LINE+63]]:{{[0-9]+}}: error: read-write race on shared `s` element [1] in block (0, 0, 0): thread 0 reads it at {{.*}}race_checker.py:[[@LINE+63]]:{{[0-9]+}}, then thread 1 writes it here
# RUN: %tilec run %s --device cpu --check-races -k parallel -D shifted=False 2>&1 | FileCheck %s --check-prefix=CLEAN
# CLEAN-NOT: error
# CLEAN: race check: 0 finding(s)
#
# A wait on the wrong parity (1 on a fresh mbarrier passes at once), then a read of the TMA
# load it was meant to wait for; with parity 0 after the arrive the same kernel is clean.
# RUN: not %tilec run %s --device cpu --check-races -k tma -D parity=1 2>&1 | FileCheck %s --check-prefix=PARITY
# PARITY: race_checker.py:[[@LINE+81]]:{{[0-9]+}}: error: a tile op's thread reads shared `tile` element [0] in block (0, 0, 0) while the asynchronous `T.tma_copy` at {{.*}}race_checker.py:[[@LINE+72]]:{{[0-9]+}} that writes it may still be in flight: no wait on mbarrier `bar[0]` has passed since it was issued
# RUN: %tilec run %s --device cpu --check-races -k tma -D parity=0 2>&1 | FileCheck %s --check-prefix=CLEAN
#
# Waiting on parity 0 again after a second arrive: that wait is for phase 2, which nothing completes.
# RUN: not %tilec run %s --device cpu --check-races -k tma -D parity=0 -D rewait=True 2>&1 | FileCheck %s --check-prefix=REWAIT
# REWAIT: race_checker.py:[[@LINE+75]]:{{[0-9]+}}: error: wait on mbarrier `bar[0]` for parity 0 in block (0, 0, 0) cannot complete in program order: it has completed 2 phase(s)
#
# The flag is CPU-only.
# RUN: not %tilec run %s --device gpu --check-races -k ww 2>&1 | FileCheck %s --check-prefix=GPU
# GPU: --check-races runs on the CPU interpreter
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def ww(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding(0)
            last = T.alloc_shared((1,), "float32")
            last[0] = A[tx]
            T.sync_threads()
            B[tx] = last[0]

    return main


@tilelang.jit(out_idx=[-1])
def rw(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding(0)
            tile = T.alloc_shared((N,), "float32")
            tile[tx] = A[tx]
            T.sync_threads()
            if tx < N - 1:
                tile[tx] = tile[tx + 1]
            T.sync_threads()
            B[tx] = tile[tx]

    return main


@tilelang.jit(out_idx=[-1])
def parallel(N=64, shifted=True):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            s = T.alloc_shared((N,), "float32")
            t = T.alloc_shared((N,), "float32")
            T.copy(A, s)
            if shifted:
                for i in T.Parallel(N - 1):
                    s[i] = s[i + 1] * 2.0
                T.copy(s, B)
            else:
                for i in T.Parallel(N):
                    t[i] = s[(i + 1) % N] * 2.0
                T.copy(t, B)

    return main


@tilelang.jit(out_idx=[-1])
def tma(N=128, parity=0, rewait=False):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            tile = T.alloc_shared((N,), "float32")
            bar = T.alloc_barrier(128)
            T.tma_copy(A, tile, barrier=bar)
            if parity == 1:
                T.barrier_wait(bar, parity)
            T.barrier_arrive(bar)
            if parity == 0:
                T.barrier_wait(bar, parity)
            if rewait:
                T.barrier_arrive(bar)
                T.barrier_wait(bar, 0)
            T.copy(tile, B)

    return main
