# Solution of lessons/06_flash_attention.py: the gap filled.
#
# Lesson 6: FlashAttention's online softmax, with the running output never rescaled.
#
# One block takes `block_M` query rows and walks the keys in tiles of `block_N`, never
# holding a whole row of scores. It keeps, per row, the largest score seen so far
# (`scores_max`), the running sum of exponentials (`logsum`) and the running output `acc_o`
# = sum of exp(score - max) * V.
#
# When a new key tile raises a row's maximum from m_old to m_new, every term already summed
# was exponentiated against m_old and is too large by exp(m_new - m_old). The kernel
# computes that factor (`scores_scale`) and applies it to `logsum`, but not to `acc_o`, so
# the output mixes terms of different scales. Rescale the partial output before P @ V adds
# the new tile. (The kernel uses exp2 with log2(e) folded into `scale`: the same math, and
# the GPU's fast exponential.)
#
# tileplay: lesson FlashAttention: rescale the running output
# tileplay: hint `logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]` rescales the running sum; the running output needs the same factor.
# tileplay: hint In the loop over (i, j) of block_M x dim, multiply: `acc_o[i, j] *= scores_scale[i]`, before the second T.gemm.
# tileplay: kernel=flashattn
# tileplay: args batch=1 heads=32 seq_q=4096 seq_kv=4096 dim=128
# tileplay: cpu-args batch=1 heads=2 seq_q=64 seq_kv=128 dim=32
# tileplay: flops 4*batch*heads*seq_q*seq_kv*dim
# tileplay: bytes 2*batch*heads*dim*(2*seq_q + 2*seq_kv)
# tileplay: baseline torch: scaled_dot_product_attention(Q, K, V)
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[3])
def flashattn(batch, heads, seq_q, seq_kv, dim, block_M=64, block_N=32, threads=128):
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # 1/sqrt(dim), times log2(e) for exp2
    dtype = "float16"
    accum_dtype = "float32"

    @T.prim_func
    def main(
        Q: T.Tensor([batch, heads, seq_q, dim], dtype),
        K: T.Tensor([batch, heads, seq_kv, dim], dtype),
        V: T.Tensor([batch, heads, seq_kv, dim], dtype),
        Output: T.Tensor([batch, heads, seq_q, dim], dtype),
    ):
        with T.Kernel(T.ceildiv(seq_q, block_M), heads, batch, threads=threads) as (bx, by, bz):
            Q_shared = T.alloc_shared([block_M, dim], dtype)
            K_shared = T.alloc_shared([block_N, dim], dtype)
            V_shared = T.alloc_shared([block_N, dim], dtype)
            acc_s = T.alloc_fragment([block_M, block_N], accum_dtype)
            acc_s_cast = T.alloc_fragment([block_M, block_N], dtype)
            acc_o = T.alloc_fragment([block_M, dim], accum_dtype)
            scores_max = T.alloc_fragment([block_M], accum_dtype)
            scores_max_prev = T.alloc_fragment([block_M], accum_dtype)
            scores_scale = T.alloc_fragment([block_M], accum_dtype)
            scores_sum = T.alloc_fragment([block_M], accum_dtype)
            logsum = T.alloc_fragment([block_M], accum_dtype)

            T.copy(Q[bz, by, bx * block_M:(bx + 1) * block_M, :], Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            for k in T.Pipelined(T.ceildiv(seq_kv, block_N), num_stages=1):
                T.copy(K[bz, by, k * block_N:(k + 1) * block_N, :], K_shared)
                T.clear(acc_s)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)

                T.copy(scores_max, scores_max_prev)
                T.reduce_max(acc_s, scores_max, dim=1, clear=False)
                for i in T.Parallel(block_M):
                    scores_scale[i] = T.exp2(scores_max_prev[i] * scale - scores_max[i] * scale)
                for i, j in T.Parallel(block_M, block_N):
                    acc_s[i, j] = T.exp2(acc_s[i, j] * scale - scores_max[i] * scale)
                T.reduce_sum(acc_s, scores_sum, dim=1)
                for i in T.Parallel(block_M):
                    logsum[i] = logsum[i] * scores_scale[i] + scores_sum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(block_M, dim):
                    acc_o[i, j] *= scores_scale[i]

                T.copy(V[bz, by, k * block_N:(k + 1) * block_N, :], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, Output[bz, by, bx * block_M:(bx + 1) * block_M, :])

    return main
