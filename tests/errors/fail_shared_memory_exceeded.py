# RUN: not %tilec compile %s --arch sm_80 --emit cuda 2>&1 | FileCheck %s
# Three stages of 256x64 A and 64x256 B fp16 tiles need 196608 bytes; an A100 block gets 166912.
# CHECK: fail_shared_memory_exceeded.py:[[@LINE+11]]:{{[0-9]+}}: error: shared memory 196608 bytes exceeds the sm_80 limit of 166912 bytes per block [SharedMemoryExceeded]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=1024, N=1024, K=1024, block_M=256, block_N=256, block_K=64, num_stages=3):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
