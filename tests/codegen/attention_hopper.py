# Attention on sm_90a through the general producer/consumer path: a TMA producer warpgroup
# beside the user's two consumer warpgroups, Q in a one-slot ring, K and V in two-slot rings,
# S = Q K^T as SS wgmma that clears its accumulator (the tail mask is proved never to apply),
# the loop rotated so iteration k's softmax runs while k - 1's P V does, P packed in pairs
# for the RS wgmma, consumer warpgroups taking turns. Every variant of the body below (exp for
# exp2, another scale, an extra clamp, a strict causal mask, a loop bound from min, BSHD,
# seq_q != seq_kv) takes the same path: nothing here matches one program's statements.
# dim = 96 rows are no wgmma operand: the gemms say why and run mma.sync on TMA-fed tiles.
# Q, which the loop never writes, is loaded once into packed registers (hoist_gemm_operand), so
# S = Q K^T is an RS wgmma; tp.disable_hoist_operand keeps the SS form.
# RUN: %tilec compile %s --arch sm_90a -D threads=256 --emit cuda --no-lineinfo | FileCheck %s --check-prefix=CUDA
# RUN: %tilec compile %s --arch sm_90a -D threads=256 --emit ptx | FileCheck %s --check-prefix=PTX
# P packs into the RS operand with one cvt.rn.f16x2.f32 a word: no shift and identity PRMT to put
# the two halves back together (64 instructions an iteration before).
# RUN: %tilec compile %s --arch sm_90a -D threads=256 --emit ptx | FileCheck %s --check-prefix=PACK --implicit-check-not=prmt.b32
# PACK: cvt.rn.f16x2.f32
# RUN: %tilec compile %s --arch sm_90a -D threads=256 --pass-config tp.disable_hoist_operand=true --emit cuda --no-lineinfo | FileCheck %s --check-prefix=SS
# RUN: %tilec compile %s --arch sm_90 -D threads=256 --emit ptx | FileCheck %s --check-prefix=SM90 --implicit-check-not=wgmma --implicit-check-not=shared::cluster.global.mbarrier --implicit-check-not=setmaxnreg
# RUN: %tilec compile %s --arch sm_90a -D threads=256 -D variant=exp --emit lowered | FileCheck %s --check-prefix=WS
# RUN: %tilec compile %s --arch sm_90a -D threads=256 -D variant=scale --emit lowered | FileCheck %s --check-prefix=WS
# RUN: %tilec compile %s --arch sm_90a -D threads=256 -D variant=extra --emit lowered | FileCheck %s --check-prefix=WS
# RUN: %tilec compile %s --arch sm_90a -D threads=256 -D variant=strict -D is_causal=True --emit lowered | FileCheck %s --check-prefix=WS
# RUN: %tilec compile %s --arch sm_90a -D threads=256 -D variant=bound --emit lowered | FileCheck %s --check-prefix=WS
# RUN: %tilec compile %s --arch sm_90a -D threads=256 -D layout=bshd -D seq_kv=256 --emit lowered | FileCheck %s --check-prefix=BSHD
# RUN: %tilec compile %s --arch sm_90a -D threads=256 -D dim=96 --remarks --emit lowered 2>&1 | FileCheck %s --check-prefix=D96
# CUDA: __launch_bounds__(384, 1) flashattn_kernel(const half_t* __restrict__ Q, const half_t* __restrict__ K, const half_t* __restrict__ V, half_t* __restrict__ Output, const __grid_constant__ tp::TmaDesc tp_tma_0, const __grid_constant__ tp::TmaDesc tp_tma_1, const __grid_constant__ tp::TmaDesc tp_tma_2, const __grid_constant__ tp::TmaDesc tp_tma_3)
# CUDA: if (threadIdx.x >= 256) {
# CUDA-NEXT: tp::setmaxnreg_dec<24>();
# CUDA: tp::tma_load(&Q_shared[0], &tp_tma_1, &tp_mbar[0], 0, (bx * 128), by, bz);
# CUDA: } else {
# CUDA-NEXT: tp::setmaxnreg_inc<240>();
# CUDA: tp::mbar_wait(&tp_mbar[0], tp_Q_shared_c_phase);
# CUDA: tp::frag_load_smem_packed<tp::AccLayout<128, 64, 8, 1>, 64, false>(&Q_shared_regs[0], &Q_shared[0], tx);
# CUDA: tp::gemm_wgmma_rs_packed<128, 64, 64, 8, 1, true, half_t, true>(&Q_shared_regs[0], &K_shared[(tp_K_shared_c_slot * 4096)], &acc_s[0], tx, false);
# CUDA: tp::frag_pack_pairs<32, half_t>(&acc_s[0], &acc_s_cast[0]);
# CUDA: for (int k = 1; k < 8; ++k) {
# CUDA: tp::named_barrier_sync((2 + (tx / 128)), 256);
# CUDA-NEXT: tp::gemm_wgmma_rs_packed<128, 64, 64, 8, 1, true, half_t, true>(&Q_shared_regs[0],
# SS-NOT: Q_shared_regs
# SS: tp::gemm_wgmma_ss<128, 64, 64, 8, 1, false, true, half_t, true>(&Q_shared[0], &K_shared[(tp_K_shared_c_slot * 4096)], &acc_s[0], tx, false);
# CUDA: acc_o[tp_f
# CUDA: tp::mbar_wait(&tp_mbar[(6 + tp_V_shared_c_slot)], tp_V_shared_c_phase);
# CUDA-NEXT: tp::gemm_wgmma_rs_packed<128, 64, 64, 8, 1, false, half_t>(&acc_s_cast[0], &V_shared[(tp_V_shared_c_slot * 4096)], &acc_o[0], tx, false);
# CUDA-NEXT: tp::named_barrier_arrive((2 + (((tx / 128) + 1) % 2)), 256);
# CUDA: tp::wgmma_wait<1>(), tp::wgmma_fence_operands<32>(&acc_s[0]), tp::wgmma_fence_packed<16>(&Q_shared_regs[0]);
# CUDA-NEXT: tp::ring_release(&tp_mbar[(4 + tp_K_shared_c_slot)]);
# CUDA: tp::wgmma_wait<0>(), tp::wgmma_fence_operands<32>(&acc_o[0]), tp::wgmma_fence_packed<16>(&acc_s_cast[0]);
# CUDA-NEXT: tp::ring_release(&tp_mbar[(8 + tp_V_shared_c_slot)]);
# CUDA: tp::frag_pack_pairs<32, half_t>(&acc_s[0], &acc_s_cast[0]);
# CUDA-NEXT: }
# CUDA: tp::gemm_wgmma_rs_packed<
# CUDA: tp::named_barrier_sync(2, 256);
# PTX: .target sm_90a
# PTX-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes
# PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
# PTX-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
# PTX-DAG: wgmma.wait_group.sync.aligned 1
# PTX-DAG: mbarrier.try_wait.parity.shared::cta.b64
# PTX-DAG: barrier.arrive
# SM90: .target sm_90
# SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# WS: # attr tp.tma_maps = Output:64x64x1x1:128;Q:64x128x1x1:0;K:64x64x1x1:128;V:64x64x1x1:128
# WS: # attr tp.ws = producer-consumer
# WS: with T.Kernel(4, 4, 2, threads=384) as (bx, by, bz):
# WS: with T.ws_producer(threads=128, regs=24):
# WS: with T.ws_consumer(threads=256, regs=240):
# BSHD: # attr tp.tma_maps = Output:64x1x64x1:128;Q:64x1x128x1:0;K:64x1x64x1:128;V:64x1x64x1:128
# BSHD: with T.ws_consumer(threads=256, regs=240):
# D96: attention_hopper.py:[[@LINE+70]]:17: remark: wgmma not used: wgmma needs A's rows to be 32, 64 or a multiple of 128 bytes; they are 192; this T.gemm runs on mma.sync [FastPathNotTaken]
# D96: attention_hopper.py:[[@LINE+91]]:17: remark: wgmma not used: wgmma needs B's rows to be 32, 64 or a multiple of 128 bytes; they are 192; this T.gemm runs on mma.sync [FastPathNotTaken]
# D96: # attr tp.tma_maps = Q:96x128x1x1:0;K:96x64x1x1:0;V:96x64x1x1:0
# D96: with T.ws_consumer(threads=256, regs=240):
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
