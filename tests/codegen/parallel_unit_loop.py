# A T.Parallel nest with an extent-1 loop among longer ones (dsa_hisa's block_sparse_mqa_fp8:
# `T.Parallel(block_N, H_per_block // heads, heads)` over a reshaped accumulator, with
# H_per_block == heads): the unit loop's variable is 0, so the nest lowers as the longer loops
# over the accumulator (`s[bn, 0 * 64 + h]` is `s[bn, h]`) instead of being refused as a loop
# whose fragments are not indexed by its variables. OUT (with the unit loop) must equal REF (the
# same written without it) on the CPU, and the kernel compile for both targets.
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_90a -o %t.ptx
# RUN: %tilec compile %s --emit ptx --arch sm_80 -o %t80.ptx
# RUN: %tilec run %s --device cpu | FileCheck %s --check-prefix=CPU
# CHECK: tp::gemm_ss<
# CHECK: s[[[F:tp_f_[0-9]+]]] = (tp::max(s[[[F]]], 0.0f) * w[h_i]);
# CPU: output Out: float32[64, 64] [[STATS:.*]]
# CPU: output Ref: float32[64, 64] [[STATS]]
#
# tileplay: kernel=scaled_scores
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def scaled_scores(block_N=64, heads=64, dim=32):
    @T.prim_func
    def main(K: T.Tensor((block_N, dim), T.float16), Q: T.Tensor((heads, dim), T.float16), W: T.Tensor((1, heads), T.float32),
             Out: T.Tensor((block_N, heads), T.float32), Ref: T.Tensor((block_N, heads), T.float32)):
        with T.Kernel(1, threads=128) as bx:
            k_shared = T.alloc_shared((block_N, dim), T.float16)
            q_shared = T.alloc_shared((heads, dim), T.float16)
            s = T.alloc_fragment((block_N, heads), T.float32)
            s_reshaped = T.reshape(s, (block_N, 1, heads))
            r = T.alloc_fragment((block_N, heads), T.float32)
            w = T.alloc_fragment((1, heads), T.float32)
            T.copy(K, k_shared)
            T.copy(Q, q_shared)
            T.copy(W, w)
            T.gemm(k_shared, q_shared, s, transpose_B=True, clear_accum=True)
            T.gemm(k_shared, q_shared, r, transpose_B=True, clear_accum=True)
            for bn_i, bq_i, h_i in T.Parallel(block_N, 1, heads):
                s_reshaped[bn_i, bq_i, h_i] = T.max(s_reshaped[bn_i, bq_i, h_i], 0) * w[bq_i, h_i]
            for bn_i, h_i in T.Parallel(block_N, heads):
                r[bn_i, h_i] = T.max(r[bn_i, h_i], 0) * w[0, h_i]
            T.copy(s, Out)
            T.copy(r, Ref)

    return main
