# sm_90a: samples/flash_attention.py, unchanged, becomes the warp-specialized TMA + wgmma
# FlashAttention template (tp::WsAttention, persistent overlap + ping-pong, 3 warpgroups, Q/K/V
# as 3-D tensor maps), full and causal. The kernel below is the sample's BHSD kernel with one
# `variant` switch: "same" keeps it (and must match, so the other variants test exactly their
# change); each other variant changes what the kernel computes and must stay on mma.sync with a
# `tp.ws_attention = not applied: ...` remark. sm_90 never sees the template.
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --emit cuda --no-lineinfo | FileCheck %s --check-prefix=CUDA
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --emit ptx | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a -D is_causal=True --emit cuda --no-lineinfo | FileCheck %s --check-prefix=CAUSAL
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a -D is_causal=True --emit ptx | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a -D dim=64 -D seq_q=1000 -D seq_kv=1000 --emit lowered | FileCheck %s --check-prefix=D64
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90 --emit ptx | FileCheck %s --check-prefix=SM90 --implicit-check-not=wgmma --implicit-check-not=cp.async.bulk.tensor --implicit-check-not=setmaxnreg
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90 --emit lowered | FileCheck %s --check-prefix=SM90IR --implicit-check-not=tp.ws
# RUN: %tilec compile %s --arch sm_90a -D variant=same --emit lowered | FileCheck %s --check-prefix=SAME
# RUN: %tilec compile %s --arch sm_90a -D variant=same -D is_causal=True --emit lowered | FileCheck %s --check-prefix=SAMEC
# RUN: %tilec compile %s --arch sm_90a -D variant=exp --emit lowered | FileCheck %s --check-prefix=EXP
# RUN: %tilec compile %s --arch sm_90a -D variant=exp --emit ptx | FileCheck %s --check-prefix=FALLBACK --implicit-check-not=wgmma.mma_async --implicit-check-not=cp.async.bulk.tensor
# RUN: %tilec compile %s --arch sm_90a -D variant=scale --emit lowered | FileCheck %s --check-prefix=SCALE
# RUN: %tilec compile %s --arch sm_90a -D variant=extra --emit lowered | FileCheck %s --check-prefix=EXTRA
# RUN: %tilec compile %s --arch sm_90a -D variant=strict -D is_causal=True --emit lowered | FileCheck %s --check-prefix=MASK
# RUN: %tilec compile %s --arch sm_90a -D variant=bound --emit lowered | FileCheck %s --check-prefix=BOUND
# RUN: %tilec compile %s --arch sm_90a -D variant=same -D seq_kv=256 --emit lowered | FileCheck %s --check-prefix=SEQ
# RUN: %tilec compile %s --arch sm_90a -D variant=same -D dim=96 --emit lowered | FileCheck %s --check-prefix=DIM
# RUN: %tilec compile %s --arch sm_90a -D variant=same -D layout=bshd --emit lowered | FileCheck %s --check-prefix=BSHD
# RUN: %tilec compile %s --arch sm_90a -D variant=exp --print-after=warp-specialize-attention --emit lowered 2>&1 | FileCheck %s --check-prefix=REMARK

# CUDA: #include "tp_ws_attention_kernel.cuh"
# CUDA: __launch_bounds__(384, 1) flashattn_kernel(const half_t* __restrict__ Q, const half_t* __restrict__ K, const half_t* __restrict__ V, half_t* __restrict__ Output, const __grid_constant__ tp::TmaDesc tp_tma_0, const __grid_constant__ tp::TmaDesc tp_tma_1, const __grid_constant__ tp::TmaDesc tp_tma_2)
# CUDA: extern __shared__ __align__(1024) unsigned char tp_smem_raw[];
# CUDA: tp::WsAttentionKernel<tp::WsAttention<half_t, 128, 128, 2, 2, false, true, true>, half_t, false, true>::run(&tp_fa_smem[0], &tp_tma_0, &tp_tma_1, &tp_tma_2, &Output[0], 4096, 32, 0.127517432f);
# PTX: .target sm_90a
# PTX-DAG: cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes
# PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
# PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
# PTX-DAG: wgmma.wait_group.sync.aligned 1
# PTX-DAG: bar.arrive
# CAUSAL: tp::WsAttentionKernel<tp::WsAttention<half_t, 128, 128, 2, 2, true, true, true>, half_t, true, true>::run(
# D64: # attr tp.tma_maps = Q:64x128x1:128:32x1000x64;K:64x128x1:128:32x1000x64;V:64x128x1:128:32x1000x64
# D64: # attr tp.ws_attention = tp::WsAttention<half_t, 64, 128, 2, 2, false, true, true> full, persistent grid of 256 units
# D64: with T.Kernel(256, threads=384) as tp_pid:
# SM90: .target sm_90
# SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# SM90IR: with T.Kernel(32, 32, 1, threads=128) as (bx, by, bz):
# SAME: # attr tp.ws_attention = tp::WsAttention<half_t, 64, 128, 2, 2, false, true, true> full, persistent grid of 32 units, scale 0.180337
# SAME: with T.Kernel(32, threads=384) as tp_pid:
# SAMEC: # attr tp.ws_attention = tp::WsAttention<half_t, 64, 128, 2, 2, true, true, true> causal, persistent grid of 16 units
# EXP: # attr tp.ws_attention = not applied: the probabilities are not exp2(acc_s * scale - max * scale) with the correction's scale
# EXP: with T.Kernel(4, 4, 2, threads=128) as (bx, by, bz):
# FALLBACK: .target sm_90a
# FALLBACK: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# SCALE: # attr tp.ws_attention = not applied: the probabilities are not exp2(acc_s * scale - max * scale) with the correction's scale
# EXTRA: # attr tp.ws_attention = not applied: the kv loop is not the online-softmax body
# MASK: # attr tp.ws_attention = not applied: the mask is neither
# BOUND: # attr tp.ws_attention = not applied: the kv loop bound is not ceildiv(seq_kv, block_N)
# SEQ: # attr tp.ws_attention = not applied: seq_q != seq_kv
# DIM: # attr tp.ws_attention = not applied: dim 96
# BSHD: # attr tp.ws_attention = not applied: the Q tile is not [bz, by, rows, :] of a BHSD tensor
# REMARK: IR after warp-specialize-attention
# REMARK: # attr tp.ws_attention = not applied: the probabilities are not exp2
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[3])
def flashattn(batch=2, heads=4, seq_q=512, seq_kv=512, dim=64, is_causal=False, layout="bhsd", variant="same",
              block_M=128, block_N=64, num_stages=2, threads=128):
    scale = (1.0 / dim) ** 0.5 * 1.44269504
    p_scale = scale * 0.5 if variant == "scale" else scale
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
                if is_causal or variant == "bound"
                else T.ceildiv(seq_kv, block_N)
            )
            for k in T.Pipelined(loop_range, num_stages=num_stages):
                T.copy(tile(K, bz, by, k * block_N, block_N), K_shared)
                for i, j in T.Parallel(block_M, block_N):
                    if is_causal and variant == "strict":
                        acc_s[i, j] = T.if_then_else(
                            (bx * block_M + i > k * block_N + j) and (k * block_N + j < seq_kv),
                            0, -T.infinity(accum_dtype))
                    elif is_causal:
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
                    if variant == "exp":
                        acc_s[i, j] = T.exp(acc_s[i, j] * scale - scores_max[i] * scale)
                    else:
                        acc_s[i, j] = T.exp2(acc_s[i, j] * p_scale - scores_max[i] * p_scale)
                if variant == "extra":
                    for i, j in T.Parallel(block_M, block_N):
                        acc_s[i, j] = T.min(acc_s[i, j], 0.5)
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
