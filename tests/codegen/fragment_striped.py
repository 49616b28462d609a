# A fragment that no T.gemm touches is striped over the threads: element e lives in thread
# e % 128 at slot e / 128, and T.copy / T.Parallel over it become per-thread loops.
# RUN: %tilec compile %s --emit cuda --no-lineinfo | FileCheck %s
# CHECK: float x[4];
# CHECK: for (int tp_r = 0; tp_r < 4; ++tp_r) {
# CHECK-NEXT: const int tp_e = ((tp_r * 128) + tx);
# CHECK-NEXT: const int tp_i = (tp_e / 16);
# CHECK-NEXT: const int tp_j = (tp_e % 16);
# CHECK-NEXT: x[tp_r] = (((((by * 32) + tp_i) < 100) && (((bx * 16) + tp_j) < 20)) ? static_cast<float>(A[
# CHECK: x[tp_r_1] = (x[tp_r_1] * 2.0f);
# CHECK-NOT: __syncthreads
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(M=100, N=20, block_M=32, block_N=16):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            x = T.alloc_fragment((block_M, block_N), "float32")
            T.copy(A[by * block_M, bx * block_N], x)
            for i, j in T.Parallel(block_M, block_N):
                x[i, j] = x[i, j] * 2.0
            T.copy(x, B[by * block_M, bx * block_N])

    return main
