# An element-wise kernel over a huge 1-D grid runs 4 logical blocks per launched block; the
# kernel info (what the runtime launches) follows the lowered grid, the logical one is kept.
# RUN: %tilec compile %s --print-after=coarsen-blocks --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit cuda | FileCheck --check-prefix=CUDA %s
# RUN: %tilec compile %s --emit cuda --json | FileCheck --check-prefix=JSON %s
# RUN: %tilec compile %s -D N=4096 --emit cuda | FileCheck --check-prefix=SMALL %s
# CHECK: IR after coarsen-blocks
# CHECK: T.Kernel(262144, threads=256) as bx_o
# CHECK: for bx_c in T.unroll(4)
# CUDA: const int bx_o = blockIdx.x;
# CUDA: #pragma unroll
# CUDA: for (int bx_c = 0; bx_c < 4; ++bx_c)
# CUDA: const int bx = ((bx_o * 4) + bx_c);
# JSON: "grid": [
# JSON-NEXT: 262144
# JSON: "logical_grid": [
# JSON-NEXT: 1048576
# A small grid is left alone.
# SMALL-NOT: bx_c
# SMALL: const int bx = blockIdx.x;
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(N=268435456, block_N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), threads=256) as bx:
            for i in T.Parallel(block_N):
                B[bx * block_N + i] = A[bx * block_N + i] * 2.0

    return main
