# Tutorial 6: FlashAttention forward. One block computes block_M query rows against every
# key tile: S = Q K^T on Tensor Cores into a register fragment, the online softmax keeps a
# running max and sum per row (rescaling the partial output when the max grows), and
# P V accumulates with P still in registers. Causal masking skips the key tiles above the
# diagonal. `layout` picks BSHD (batch, seq, heads, dim) or BHSD tensors.
#
# Schedule: the factory's defaults (8 warps of 16 rows, K and V loaded once per tile) fit the
# 64 KB of shared memory of sm_75. The GPU run below double-buffers K and V (num_stages=2). On
# Hopper (sm_90a) the 256 threads are two consumer warpgroups of 64 query rows each: the
# compiler adds a producer warpgroup that loads K and V with TMA into mbarrier rings, runs the
# two gemms as wgmma, and overlaps each tile's softmax with the previous tile's P V. The
# `mma.sync` variant is FlashAttention-2's schedule for sm_80-class GPUs: 4 warps of 32 rows
# each (every K/V fragment read from shared memory feeds two m16 tiles). The `Hopper tiles`
# variants take 128 keys a tile (S is 64 x 128 a warpgroup): two K/V stages of that size need
# 160 KB of shared memory, which only sm_80 and sm_90 have.
#
# Fast math (`tl.enable_fast_math`, as TileLang's own attention examples set it; NVRTC gets
# --use_fast_math, as nvcc does there): T.exp2 is the hardware's ex2.approx and `/` the
# approximate division (2 ulp, subnormals flushed to 0): exp2 runs 8192 times a tile on the
# loop's critical path, and the epilogue's O / l would otherwise be an IEEE divide per element.
#
# tileplay: kernel=flashattn
# tileplay: args batch=1 heads=32 seq_q=4096 seq_kv=4096 dim=128 is_causal=False threads=256 num_stages=2
# tileplay: cpu-args batch=1 heads=2 seq_q=128 seq_kv=128 dim=64 is_causal=False
# tileplay: flops 4*batch*heads*seq_q*seq_kv*dim / (1 + is_causal)
# tileplay: bytes 2*batch*heads*dim*(2*seq_q + 2*seq_kv)
# tileplay: baseline torch[sdpa=cudnn]: scaled_dot_product_attention(Q, K, V, is_causal=bool(is_causal))
# tileplay: baseline torch[sdpa=flash]: scaled_dot_product_attention(Q, K, V, is_causal=bool(is_causal))
# tileplay: variant causal: is_causal=True
# tileplay: variant mma.sync: threads=128 | arch=sm_90
# tileplay: variant Hopper tiles: block_N=128
# tileplay: variant Hopper tiles causal: block_N=128 is_causal=True
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[3], pass_configs={tilelang.PassConfigKey.TL_ENABLE_FAST_MATH: True})
def flashattn(batch, heads, seq_q, seq_kv, dim, is_causal=False, layout="bhsd",
              block_M=128, block_N=64, num_stages=1, threads=256):
    scale = (1.0 / dim) ** 0.5 * 1.44269504  # 1/sqrt(d), and log2(e) for exp2
    dtype = "float16"
    accum_dtype = "float32"
    if layout == "bshd":
        q_shape = [batch, seq_q, heads, dim]
        kv_shape = [batch, seq_kv, heads, dim]
    else:
        q_shape = [batch, heads, seq_q, dim]
        kv_shape = [batch, heads, seq_kv, dim]

    def tile(buf, b, h, start, rows):
        if layout == "bshd":
            return buf[b, start:start + rows, h, :]
        return buf[b, h, start:start + rows, :]

    @T.prim_func
    def main(
        Q: T.Tensor(q_shape, dtype),
        K: T.Tensor(kv_shape, dtype),
        V: T.Tensor(kv_shape, dtype),
        Output: T.Tensor(q_shape, dtype),
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

            T.copy(tile(Q, bz, by, bx * block_M, block_M), Q_shared)
            T.fill(acc_o, 0)
            T.fill(logsum, 0)
            T.fill(scores_max, -T.infinity(accum_dtype))

            loop_range = (
                T.min(T.ceildiv(seq_kv, block_N), T.ceildiv((bx + 1) * block_M, block_N))
                if is_causal
                else T.ceildiv(seq_kv, block_N)
            )
            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(tile(K, bz, by, k * block_N, block_N), K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    if is_causal:
                        acc_s[i, j] = T.if_then_else(
                            (bx * block_M + i >= k * block_N + j) and (k * block_N + j < seq_kv),
                            0, -T.infinity(accum_dtype))
                    else:
                        acc_s[i, j] = T.if_then_else(k * block_N + j < seq_kv, 0, -T.infinity(accum_dtype))
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

                T.copy(tile(V, bz, by, k * block_N, block_N), V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)

            for i, j in T.Parallel(block_M, dim):
                acc_o[i, j] /= logsum[i]
            T.copy(acc_o, tile(Output, bz, by, bx * block_M, block_M))

    return main


if __name__ == "__main__":
    import torch
    import torch.nn.functional as F

    kernel = flashattn(1, 32, 4096, 4096, 128, is_causal=True)
    q, k, v = (torch.randn(1, 32, 4096, 128, device="cuda", dtype=torch.float16) for _ in range(3))
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True)
    torch.testing.assert_close(kernel(q, k, v), ref, rtol=1e-2, atol=1e-2)
    print("flash attention matches SDPA")
