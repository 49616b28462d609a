# stage-fragments + layout-inference: a T.copy of the first rows of an accumulator (the valid
# heads of a decode tile) meets its elements by the region's shape, not the accumulator's layout:
# the accumulator is copied whole into a shared tile and the rows copied from there. A loop over
# part of a striped fragment (too large to replicate) is staged the same way: it does not drive
# the loop. A one-element
# copy out of a fragment into a column is a scalar access: that fragment is replicated.
# RUN: %tilec compile %s --emit lowered --print-after=stage-fragments 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK-LABEL: IR after stage-fragments
# CHECK: acc_stage = T.alloc_shared((64, 64), "float32")
# CHECK: w_stage = T.alloc_shared((128,), "float32")
# CHECK: T.copy(acc[0:64, 0:64], acc_stage[0:64, 0:64])
# CHECK-NEXT: T.copy(acc_stage[0:16, 0:64], o_shared[0:16, 0:64])
# CHECK: T.copy(w[0:128], w_stage[0:128])
# CHECK-NEXT: for i in T.Parallel(16):
# CHECK-NEXT: w_stage[i] = w_stage[i] * 2.0
# CHECK-NEXT: T.copy(w_stage[0:128], w[0:128])
# CHECK-NOT: s_stage
# CPU: output O: float32[16, 64]
#
# tileplay: kernel=decode_rows
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def decode_rows(H=16, block_H=64, D=64, K=32):
    @T.prim_func
    def main(Q: T.Tensor((block_H, K), "float16"), KV: T.Tensor((K, D), "float16"), W: T.Tensor((2 * block_H,), "float32"),
             Col: T.Tensor((block_H, 4), "float32"), O: T.Tensor((H, D), "float32")):
        with T.Kernel(1, threads=128) as bx:
            q = T.alloc_shared((block_H, K), "float16")
            kv = T.alloc_shared((K, D), "float16")
            acc = T.alloc_fragment((block_H, D), "float32")
            o_shared = T.alloc_shared((H, D), "float32")
            w = T.alloc_fragment((2 * block_H,), "float32")
            s = T.alloc_fragment((1,), "float32")
            col = T.alloc_shared((block_H, 4), "float32")
            T.copy(Q, q)
            T.copy(KV, kv)
            T.gemm(q, kv, acc, clear_accum=True)
            T.copy(acc[:H, :], o_shared)
            T.copy(W, w)
            for i in T.Parallel(H):
                w[i] = w[i] * 2
            T.clear(col)
            for k in T.serial(4):
                for i in T.Parallel(1):
                    s[i] = W[k]
                T.copy(s, col[k, k])
            for i, j in T.Parallel(H, D):
                O[i, j] = o_shared[i, j] * w[i] + col[i % block_H, i % 4]

    return main
