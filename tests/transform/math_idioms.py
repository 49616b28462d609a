# math-idioms: the exact GELU written out, 0.5 * x * (1 + erf(x / sqrt 2)), becomes one
# gelu_erf(x) call (tp::gelu_erf: ~12 instructions instead of erff's ~29) in every order of
# its factors, with the 0.5 as a division by 2 and the 1/sqrt 2 as a division by sqrt 2.
# Near misses keep their literal form: another constant, another operand, float16 math.
# RUN: %tilec compile %s --print-after=math-idioms --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit cuda --no-lineinfo | FileCheck --check-prefix=CUDA %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: IR after math-idioms
# CHECK: G[bx * 128 + i, 0] = T.gelu_erf(x)
# CHECK: G[bx * 128 + i, 1] = T.gelu_erf(x)
# CHECK: G[bx * 128 + i, 2] = T.gelu_erf(x)
# CHECK: G[bx * 128 + i, 3] = T.gelu_erf(A[bx * 128 + i])
# CHECK: G[bx * 128 + i, 4] = 0.5 * x * (1.0 + T.erf(x * 0.69
# CHECK: G[bx * 128 + i, 5] = 0.5 * x * (1.0 + T.erf(y * 0.70
# CHECK: G[bx * 128 + i, 6] = T.Cast("float32", T.float16(0.5) * h * (T.float16(1.0) + T.erf(h * T.float16(0.70
# CUDA-COUNT-4: tp::gelu_erf(
# CUDA-NOT: tp::gelu_erf(
# The CPU interpreter runs gelu_erf too (in double precision).
# CPU: output G: float32[256, 7]
import math

import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def gelus(M=256, dtype="float32"):
    @T.prim_func
    def main(A: T.Tensor((M,), dtype), G: T.Tensor((M, 7), dtype)):
        with T.Kernel(T.ceildiv(M, 128), threads=128) as bx:
            for i in T.Parallel(128):
                x = A[bx * 128 + i]
                y = x + 1.0
                h = T.cast(x, "float16")
                G[bx * 128 + i, 0] = 0.5 * x * (1.0 + T.erf(x * 0.7071067811865476))
                G[bx * 128 + i, 1] = x * (1.0 + T.erf(x / math.sqrt(2.0))) / 2
                G[bx * 128 + i, 2] = (T.erf(0.7071067811865476 * x) + 1.0) * x * 0.5
                G[bx * 128 + i, 3] = 0.5 * A[bx * 128 + i] * (1.0 + T.erf(A[bx * 128 + i] * 0.7071067811865476))
                G[bx * 128 + i, 4] = 0.5 * x * (1.0 + T.erf(x * 0.7))
                G[bx * 128 + i, 5] = 0.5 * x * (1.0 + T.erf(y * 0.7071067811865476))
                G[bx * 128 + i, 6] = T.cast(T.cast(0.5, "float16") * h * (T.cast(1.0, "float16") + T.erf(h * T.cast(0.7071067811865476, "float16"))), "float32")

    return main
