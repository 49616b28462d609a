# RUN: %tilec compile %s --arch sm_80 --emit cubin -o %t.cubin 2>&1 | FileCheck %s
# Two (4, 8192) fp32 fragments on 128 threads are 256 registers each per thread: ptxas spills,
# and the warning names the fragments at the first one's alloc line, with what to change.
# CHECK: warn_register_spill.py:[[@LINE+7]]:{{[0-9]+}}: warning: ptxas spilled {{[0-9]+}} bytes of registers to local memory at {{[0-9]+}} registers per thread; `x` holds 256 registers per thread, then `y` (256); give each thread fewer elements: fewer rows per block, more threads, or stage the tile through shared memory [RegisterSpill]
import tilelang.language as T


@T.prim_func
def norm(A: T.Tensor((64, 8192), "float32"), B: T.Tensor((64, 8192), "float32")):
    with T.Kernel(16, threads=128) as bx:
        x = T.alloc_fragment((4, 8192), "float32")
        y = T.alloc_fragment((4, 8192), "float32")
        T.copy(A[bx * 4, 0], x)
        for i, j in T.Parallel(4, 8192):
            y[i, j] = x[i, j] * x[i, j]
        T.copy(y, B[bx * 4, 0])
