# heavy-blocks-first: a loop whose trip count grows with bx (a lower-triangular row sum, as a
# causal key loop) reads bx backwards so the longest blocks launch first; a loop that shrinks
# with bx, or does not depend on it, keeps the order. The interpreter (which runs the kernel as
# written) and the GPU compute the same tiles.
# RUN: %tilec compile %s --print-after heavy-blocks-first --emit lowered 2>&1 | FileCheck %s --check-prefix=GROWS
# RUN: %tilec compile %s -D shape=upper --print-after heavy-blocks-first --emit lowered 2>&1 | FileCheck %s --check-prefix=SHRINKS
# RUN: %tilec compile %s -D shape=full --print-after heavy-blocks-first --emit lowered 2>&1 | FileCheck %s --check-prefix=FLAT
# GROWS: IR after heavy-blocks-first
# GROWS: steps = 7 - bx + 1
# GROWS-NEXT: for k in T.serial(steps):
# GROWS: A[(7 - bx) * 64 + i, k * 64 + j]
# GROWS: T.copy(acc[0:64, 0:64], S[(7 - bx) * 64:(7 - bx) * 64 + 64, 0:64])
# SHRINKS: IR after heavy-blocks-first
# SHRINKS: steps = 8 - bx
# SHRINKS-NOT: 7 - bx
# FLAT: IR after heavy-blocks-first
# FLAT: for k in T.serial(8):
# FLAT-NOT: 7 - bx
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def rowsum(N=512, block=64, shape="lower"):
    @T.prim_func
    def main(A: T.Tensor((N, N), "float32"), S: T.Tensor((N, block), "float32")):
        with T.Kernel(N // block, threads=128) as bx:
            acc = T.alloc_fragment((block, block), "float32")
            T.clear(acc)
            if shape == "lower":
                steps = bx + 1
            elif shape == "upper":
                steps = N // block - bx
            else:
                steps = N // block
            for k in T.serial(steps):
                for i, j in T.Parallel(block, block):
                    acc[i, j] += A[bx * block + i, k * block + j]
            T.copy(acc, S[bx * block, 0])

    return main
