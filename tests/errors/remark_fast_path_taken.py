# RUN: %tilec compile %s --arch sm_90a --remarks --pass-config tp.consumer_groups=2 --emit cuda -o /dev/null 2>&1 | FileCheck %s
# A transformation that changes how the kernel runs, not what it computes, is said at its line
# with --remarks: here two 128-column tiles of this one-warpgroup GEMM run as one block of two
# consumer warpgroups sharing each A tile (forced on this small grid).
# CHECK: remark_fast_path_taken.py:[[@LINE+9]]:{{[0-9]+}}: remark: consumer groups: blocks 2 at a time along block axis 0 run as one, sharing the loads of `A_shared` [FastPathTaken]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=256, N=512, K=256):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, 128), threads=128) as (bx, by):
            A_shared = T.alloc_shared((128, 32), "float16")
            B_shared = T.alloc_shared((32, 128), "float16")
            C_local = T.alloc_fragment((128, 128), "float")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=3):
                T.copy(A[by * 128, k * 32], A_shared)
                T.copy(B[k * 32, bx * 128], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * 128, bx * 128])

    return main
