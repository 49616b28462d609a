# 16-bit float arithmetic rounds each result to its type in the generated CUDA, as TileLang's
# __hmul / __hadd and the CPU interpreter do: the fp16 product below is rounded to fp16 before
# the fp32 accumulator adds it (computed in float and kept, it was 2e-4 off the interpreter on
# TileLang's attention-backward preprocess). Float arithmetic is left as it is.
# RUN: %tilec compile %s --arch sm_90a --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --arch sm_80 --emit cuda --no-lineinfo | FileCheck %s
# CHECK: acc[{{.*}}] = (acc[{{.*}}] + static_cast<float>(half_t(o[{{.*}}] * d[{{.*}}])));
# CHECK: s[{{.*}}] = (acc[{{.*}}] * 2.0f);
import tilelang
import tilelang.language as T


@tilelang.jit
def prod_sum(M=256, N=64, blk=32):
    @T.prim_func
    def main(O: T.Tensor((M, N), "float16"), dO: T.Tensor((M, N), "float16"), S: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, blk), threads=128) as bx:
            o = T.alloc_fragment((blk, N), "float16")
            d = T.alloc_fragment((blk, N), "float16")
            acc = T.alloc_fragment((blk, N), "float32")
            s = T.alloc_fragment((blk, N), "float32")
            T.clear(acc)
            T.copy(O[bx * blk, 0], o)
            T.copy(dO[bx * blk, 0], d)
            for i, j in T.Parallel(blk, N):
                acc[i, j] += o[i, j] * d[i, j]
            for i, j in T.Parallel(blk, N):
                s[i, j] = acc[i, j] * 2.0
            T.copy(s, S[bx * blk, 0])

    return main
