# Fast math (pass_configs tl.enable_fast_math, `--pass-config tl.enable_fast_math=true` or
# `--fast-math`): math calls take the hardware approximations, tanh as the sm_75+ tanh.approx
# instruction (one MUFU op; the tanh form of GELU in an epilogue), and NVRTC compiles the module
# with --use_fast_math as TileLang's nvcc does, so `/` is the approximate division (no IEEE
# divide and its slow-path call per element). Without it the kernel keeps the accurate calls.
# RUN: %tilec compile %s --emit cuda --no-lineinfo -k fast | FileCheck %s --check-prefix=FAST
# RUN: %tilec compile %s --emit ptx -k fast | FileCheck %s --check-prefix=FASTPTX
# RUN: %tilec compile %s --emit ptx --arch sm_75 -k fast | FileCheck %s --check-prefix=FASTPTX
# RUN: %tilec compile %s --emit cuda --no-lineinfo -k accurate | FileCheck %s --check-prefix=ACC
# RUN: %tilec compile %s --emit ptx -k accurate | FileCheck %s --check-prefix=ACCPTX --implicit-check-not=tanh.approx
# RUN: %tilec compile %s --emit ptx -k accurate --fast-math | FileCheck %s --check-prefix=FASTPTX
# RUN: %tilec compile %s --emit ptx -k accurate --pass-config tl.enable_fast_math=true | FileCheck %s --check-prefix=FASTPTX
# FAST: tp::fast_tanh(
# FAST: tp::fast_exp(
# FASTPTX: tanh.approx.f32
# FASTPTX: div.approx.ftz.f32
# ACC: tp::tanh(
# ACC: tp::exp(
# ACCPTX: .entry
# ACCPTX: div.rn.f32
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], pass_configs={"tl.enable_fast_math": True})
def fast(N=1024, block=128):
    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                x = X[bx * block + i]
                Y[bx * block + i] = 0.5 * x * (1.0 + T.tanh(0.7978845608 * (x + 0.044715 * x * x * x))) + T.exp(x) + x / (1.0 + x * x)

    return main


@tilelang.jit(out_idx=[-1])
def accurate(N=1024, block=128):
    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                x = X[bx * block + i]
                Y[bx * block + i] = 0.5 * x * (1.0 + T.tanh(0.7978845608 * (x + 0.044715 * x * x * x))) + T.exp(x) + x / (1.0 + x * x)

    return main
