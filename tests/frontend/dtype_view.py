# A view of a shared tile with another dtype (`T.view(t, shape, dtype=T.float32)` over a bf16
# tile, as sparse MLA backward reuses its key tile to stage f32 accumulator rows) shares the
# tile's bytes: the CUDA code puts `f` at `t`'s offset and adds no shared memory. The CPU engines
# keep the two apart (bit reinterpretation is not modelled); `halves` only reads `f` after
# writing it, so both engines give Out = Ref. `reads_across` reads `t` after writing `f`, which
# would reinterpret bits: the interpreter (the reference) has filled `t` with NaN at the write,
# so the output says so (nonfinite) instead of holding plausible numbers.
# RUN: %tilec run %s -k halves --device cpu 2>&1 | FileCheck %s
# RUN: %tilec run %s -k halves --device cpu-interp 2>&1 | FileCheck %s
# RUN: %tilec compile %s -k halves --arch sm_80 --emit=cuda 2>&1 | FileCheck --check-prefix=CUDA %s
# RUN: %tilec compile %s -k halves --arch sm_90a --emit=ptx -o /dev/null
# RUN: %tilec run %s -k reads_across --device cpu-interp 2>&1 | FileCheck --check-prefix=ACROSS %s
# CHECK: output Out: float32[64, 64] [[STATS:mean=.*]]
# CHECK: output Ref: float32[64, 64] [[STATS]]
# CUDA: bfloat16_t* t = reinterpret_cast<bfloat16_t*>(tp_smem + [[OFF:[0-9]+]]);
# CUDA: float* f = reinterpret_cast<float*>(tp_smem + [[OFF]]);
# ACROSS: output Out: bfloat16[32, 64] {{.*}}nonfinite=2048
#
# tileplay: kernel=halves
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def halves(M=64, D=64):
    @T.prim_func
    def main(A: T.Tensor((M, D), T.bfloat16), Out: T.Tensor((M, D), T.float32), Ref: T.Tensor((M, D), T.float32)):
        with T.Kernel(M // 32, threads=128) as bx:
            t = T.alloc_shared((32, D), T.bfloat16)
            f = T.view(t, shape=[16, D], dtype=T.float32)
            acc = T.alloc_fragment((32, D), T.float32)
            T.copy(A[bx * 32, 0], t)
            T.copy(t, acc)
            for s in T.serial(2):
                for i, j in T.Parallel(32, D):
                    if i < 16:
                        f[i, j] = acc[i + s * 16, j] * 2.0
                for i, j in T.Parallel(16, D):
                    Out[bx * 32 + s * 16 + i, j] = f[i, j]
        with T.Kernel(M // 32, threads=128) as bx:
            for i, j in T.Parallel(32, D):
                Ref[bx * 32 + i, j] = T.cast(A[bx * 32 + i, j], T.float32) * 2.0

    return main


@tilelang.jit(out_idx=[-1])
def reads_across(D=64):
    @T.prim_func
    def main(A: T.Tensor((32, D), T.bfloat16), Out: T.Tensor((32, D), T.bfloat16)):
        with T.Kernel(1, threads=128) as bx:
            t = T.alloc_shared((32, D), T.bfloat16)
            f = T.view(t, shape=[16, D], dtype=T.float32)
            T.copy(A, t)
            for i, j in T.Parallel(16, D):
                f[i, j] = 1.0
            T.copy(t, Out)

    return main
