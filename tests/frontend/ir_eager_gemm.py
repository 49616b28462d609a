# RUN: %tilec compile %s --emit=ir -D M=512 -D N=256 -D K=128 -D block_M=64 -D block_N=64 -D block_K=32 | FileCheck %s
# CHECK: @T.prim_func
# CHECK-NEXT: def matmul(A: T.Tensor((512, 128), "float16"), B: T.Tensor((128, 256), "float16"), C: T.Tensor((512, 256), "float16")):
# CHECK-NEXT: with T.Kernel(4, 8, threads=128) as (bx, by):
# CHECK-NEXT: A_shared = T.alloc_shared((64, 32), "float16")
# CHECK-NEXT: B_shared = T.alloc_shared((32, 64), "float16")
# CHECK-NEXT: C_local = T.alloc_fragment((64, 64), "float32")
# CHECK-NEXT: T.fill(C_local, 0.0)
# CHECK-NEXT: for ko in T.Pipelined(4, num_stages=3):
# CHECK-NEXT: T.copy(A[by * 64:by * 64 + 64, ko * 32:ko * 32 + 32], A_shared[0:64, 0:32])
# CHECK-NEXT: T.copy(B[ko * 32:ko * 32 + 32, bx * 64:bx * 64 + 64], B_shared[0:32, 0:64])
# CHECK-NEXT: T.gemm(A_shared, B_shared, C_local)
# CHECK-NEXT: T.copy(C_local[0:64, 0:64], C[by * 64:by * 64 + 64, bx * 64:bx * 64 + 64])
import tilelang
import tilelang.language as T


@tilelang.jit
def matmul(A, B, block_M, block_N, block_K, dtype=T.float16, accum_dtype=T.float32):
    M, N, K = T.const("M, N, K")
    A: T.Tensor((M, K), dtype)
    B: T.Tensor((K, N), dtype)
    C = T.empty((M, N), dtype)
    with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
        A_shared = T.alloc_shared((block_M, block_K), dtype)
        B_shared = T.alloc_shared((block_K, block_N), dtype)
        C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
        T.clear(C_local)
        for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
            T.copy(A[by * block_M, ko * block_K], A_shared)
            T.copy(B[ko * block_K, bx * block_N], B_shared)
            T.gemm(A_shared, B_shared, C_local)
        T.copy(C_local, C[by * block_M, bx * block_N])
    return C
