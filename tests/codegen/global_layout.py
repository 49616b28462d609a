# A T.Layout on a global tensor moves where each element is stored, in memory other kernels
# see: B is written through the transpose layout, so B's memory holds the transpose of what the
# kernel wrote (element [i, j] = i * 64 + j lands at row-major offset j * 64 + i), and reading
# B[i, j] back through the layout (C) returns what was written. T.copy and T.fill on a laid-out
# tensor become element loops whose indices go through the layout.
# RUN: %tilec compile %s --emit ir | FileCheck --check-prefix=IR %s
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck --check-prefix=CUDA %s
# RUN: rm -rf %t && %tilec run %s --device cpu --save-outputs %t
# RUN: python3 %S/Inputs/npy_check.py %t/B.npy transpose 64
# RUN: python3 %S/Inputs/npy_check.py %t/C.npy iota 64
# IR: B[
# IR-SAME: //
# IR-NOT: T.copy(A
# CUDA: __global__
#
# tileplay: kernel=write_laid_out
# tileplay: args N=64
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[0, 1])
def write_laid_out(N, block=16):
    @T.prim_func
    def main(B: T.Tensor((N, N), "int32"), C: T.Tensor((N, N), "int32")):
        with T.Kernel(N // block, N // block, threads=128) as (bx, by):
            T.annotate_layout({B: T.Layout(B.shape, lambda i, j: [j, i])})
            tile = T.alloc_fragment((block, block), "int32")
            for i, j in T.Parallel(block, block):
                tile[i, j] = (by * block + i) * N + bx * block + j
            T.copy(tile, B[by * block, bx * block])
            back = T.alloc_fragment((block, block), "int32")
            T.copy(B[by * block, bx * block], back)
            T.copy(back, C[by * block, bx * block])

    return main
