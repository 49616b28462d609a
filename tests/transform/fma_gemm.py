# A float32 T.gemm has no Tensor-Core path here (TileLang would use tf32 mma): it becomes a
# serial K loop around a T.Parallel nest over C of multiply-adds before layout inference, a remark
# says so, and the kernel compiles for both targets and matches A @ B on the CPU. In the CUDA,
# each K step is one unrolled pass over a thread's elements (the K loop itself is not unrolled
# inside every element, which made kda's chunk_bwd_dqkwg 1 MB of PTX).
# RUN: %tilec compile %s --print-after=fma-gemm --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit cuda | FileCheck --check-prefix=CUDA %s
# RUN: %tilec compile %s --emit cuda --remarks 2>&1 >/dev/null | FileCheck --check-prefix=REMARK %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 | FileCheck --check-prefix=PTX %s
# RUN: %tilec compile %s --emit ptx --arch sm_90a | FileCheck --check-prefix=PTX %s
# RUN: %tilec run %s --device cpu --check | FileCheck --check-prefix=CPU %s
# With clear_accum, the zeros are a nest of their own before the K loop (one K tile: C = A @ B).
# RUN: %tilec compile %s -D clear=True --print-after=fma-gemm --emit lowered 2>&1 | FileCheck --check-prefix=CLEAR %s
# RUN: %tilec run %s --device cpu --check -D clear=True -D K=16 | FileCheck --check-prefix=CPU %s
# REMARK: fma_gemm.py:[[@LINE+38]]:17: remark: Tensor Cores not used: no mma.sync or wgmma path here takes T.gemm on float32 x float32 -> float32; this T.gemm runs as multiply-add loops [FastPathNotTaken]
# CHECK: IR after fma-gemm
# CHECK: for tp_k in T.serial(16)
# CHECK-NEXT: for tp_i, tp_j in T.Parallel(32, 32)
# CHECK-NEXT: C_local[tp_i, tp_j] = C_local[tp_i, tp_j] + A_shared[tp_i, tp_k] * B_shared[tp_k, tp_j]
# CHECK-NOT: T.gemm
# CUDA: for (int tp_k = 0; tp_k < 16; ++tp_k) {
# CUDA-NEXT: #line
# CUDA-NEXT: #pragma unroll
# CUDA-NEXT: #line
# CUDA-NEXT: for (int tp_r = 0; tp_r < 8; ++tp_r) {
# CUDA: C_local[{{.*}}] = (C_local[{{.*}}] + (A_shared[{{.*}}] * B_shared[{{.*}}]));
# PTX: fma.rn.f32
# CPU: PASS
# CLEAR: IR after fma-gemm
# CLEAR: for tp_i, tp_j in T.Parallel(32, 32)
# CLEAR-NEXT: C_local[tp_i, tp_j] = 0.0
# CLEAR-NEXT: for tp_k in T.serial(16)
#
# tileplay: kernel=matmul
# tileplay: args M=64 N=64 K=64
# tileplay: baseline torch: A @ B
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=32, block_N=32, block_K=16, clear=False):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float32")
            B_shared = T.alloc_shared((block_K, block_N), "float32")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local, clear_accum=clear)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
