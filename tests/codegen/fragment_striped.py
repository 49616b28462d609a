# A fragment that no T.gemm touches is striped over the threads. Its copies from and to global
# memory want runs of 8 fp16 elements (16 bytes); 512 elements on 128 threads are no whole
# round of 8, so runs of 4 (8-byte accesses, every thread busy): element e lives in thread
# (e / 4) % 128 at slot e % 4. The tile hangs over the tensor's edge (100 x 20): a run inside
# is one access, one at the edge goes element by element, and T.Parallel is a per-thread loop.
# RUN: %tilec compile %s --emit cuda --no-lineinfo | FileCheck %s
# CHECK: float x[4];
# CHECK: tp::striped_load_global<512, 16, 128, 4, false>(&x[0], &A[(((by * 32) * 20) + (bx * 16))], 20, (100 - (by * 32)), (20 - (bx * 16)), tx);
# CHECK: for (int tp_r = 0; tp_r < 4; ++tp_r) {
# CHECK: x[tp_r] = (x[tp_r] * 2.0f);
# CHECK: tp::striped_store_global<512, 16, 128, 4, false>(&x[0], &B[
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
