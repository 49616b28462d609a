# fp8 tensors (sm_89+) use the runtime's fp8 types, converted by the hardware's cvt; older
# targets are refused before code generation.
# RUN: %tilec compile %s --arch sm_89 --emit cuda | FileCheck %s
# RUN: %tilec compile %s --arch sm_90 --emit ptx | FileCheck --check-prefix=PTX %s
# RUN: not %tilec compile %s --arch sm_80 --emit cuda 2>&1 | FileCheck --check-prefix=OLD %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: #include "tp_half.cuh"
# CHECK: fp8_e4_t* __restrict__ Q
# CHECK: static_cast<fp8_e4_t>(
# PTX: cvt.rn.satfinite.e4m3x2.f32
# PTX: cvt.rn.f16x2.e4m3x2
# OLD: error: `float8_e4m3` needs sm_89, but the target is sm_80 [FeatureNeedsTarget]
# CPU: output Q: float8_e4m3[256]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[1, 2])
def quantize(N=256):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), Q: T.Tensor((N,), "float8_e4m3"), R: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            for i in T.Parallel(N):
                Q[i] = T.cast(A[i] * 4.0, "float8_e4m3")
            for i in T.Parallel(N):
                R[i] = T.cast(Q[i], "float32")

    return main
