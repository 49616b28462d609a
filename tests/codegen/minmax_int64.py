# T.min / T.max on 64-bit index math: a dynamic grid makes block indices int64 in the IR, but
# CUDA declares them `int`, so `T.min(bx, n // block)` pairs an int with a long long and the
# generated call must name its type for the template to be chosen (NVRTC refused it before).
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec run %s --device cpu -D n=300 | FileCheck --check-prefix=CPU %s
# CHECK: tp::min<long long>(bx,
# CHECK: tp::max<long long>(bx,
# CPU: output Y: float32[300]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def clamp_block(block=64):
    n = T.dynamic("n")

    @T.prim_func
    def main(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, block), threads=block) as bx:
            lo = T.min(bx, n // block - 1)
            hi = T.max(bx, 1)
            for i in T.Parallel(block):
                if bx * block + i < n:
                    Y[bx * block + i] = X[bx * block + i] + T.Cast("float32", lo * hi)

    return main
