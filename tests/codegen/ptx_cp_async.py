# A thread's own asynchronous copies (T.ptx_cp_async on T.access_ptr pointers) completed on an
# mbarrier by T.cp_async_barrier_noinc, as DeepSeek's sparse MLA producers write them: a
# one-thread block copies each row of A, 4 floats at a time, one row down into shared memory,
# its arrival completes the barrier, and after the wait it reads the tile back transposed (the
# interpreter runs mbarrier kernels as one program, so one thread keeps this test exact). The copy
# is staged as the thread's element copy, done at issue (a valid schedule of cp.async), and the
# noinc arrival as one arrival on the barrier; a false predicate fills zeros (row 0 here, whose
# source, A[-1], would be out of the tensor). The CPU run checks B[i][j] = A[j - 1][i] (0 for j = 0).
# RUN: %tilec compile %s --emit ir | FileCheck %s --check-prefix=IR
# IR: for tp_cp in T.serial(4):
# IR: if r > 0:
# IR: S[r, c * 4 + tp_cp] = A[r - 1, c * 4 + tp_cp]
# IR: else:
# IR: S[r, c * 4 + tp_cp] = 0.0
# IR: T.mbarrier_arrive(ready[0])
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu --check-races 2>&1 | FileCheck %s --check-prefix=RACES
# RACES: race check: 0 finding(s)
# RUN: rm -rf %t && %tilec run %s --device cpu --save-inputs %t --save-outputs %t
# RUN: python3 %S/Inputs/npy_shifted_transpose.py %t/A.npy %t/B.npy
#
# tileplay: kernel=cp_async_rows
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def cp_async_rows(N=64):
    @T.prim_func
    def main(A: T.Tensor((N, N), T.float32), B: T.Tensor((N, N), T.float32)):
        with T.Kernel(1, threads=1) as bx:
            S = T.alloc_shared((N, N), T.float32)
            ready = T.alloc_barrier([1])
            for r, c in T.grid(N, N // 4):
                T.ptx_cp_async(T.access_ptr(S[r, c * 4], "w", 4), T.access_ptr(A[r - 1, c * 4], "r", 4), 4, r > 0)
            T.cp_async_barrier_noinc(ready[0])
            T.barrier_wait(ready[0], 0)
            for i, j in T.grid(N, N):
                B[i, j] = S[j, i]

    return main
