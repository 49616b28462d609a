# RUN: %tilec compile %s --arch sm_80 --remarks --emit cubin -o %t.cubin 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_80 --emit cubin -o %t.cubin 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
# A 128 x 128 fp32 accumulator on 128 threads is 128 registers per thread: two blocks of four
# warps fit an SM (8 of 64 warps), said at the accumulator's line with --remarks.
# CHECK: remark_occupancy_limited.py:[[@LINE+10]]:{{[0-9]+}}: remark: 2 block(s) per SM (8 of 64 warps): limited by {{[0-9]+}} registers per thread (`C_local` holds 128 registers per thread); fewer elements per thread or more threads raise it [OccupancyLimited]
# QUIET-NOT: remark
import tilelang.language as T


@T.prim_func
def gemm(A: T.Tensor((1024, 1024), "float16"), B: T.Tensor((1024, 1024), "float16"), C: T.Tensor((1024, 1024), "float16")):
    with T.Kernel(8, 8, threads=128) as (bx, by):
        A_shared = T.alloc_shared((128, 32), "float16")
        B_shared = T.alloc_shared((32, 128), "float16")
        C_local = T.alloc_fragment((128, 128), "float32")
        T.clear(C_local)
        for k in T.Pipelined(32, num_stages=2):
            T.copy(A[by * 128, k * 32], A_shared)
            T.copy(B[k * 32, bx * 128], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * 128, bx * 128])
