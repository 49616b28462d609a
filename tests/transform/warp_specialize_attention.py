# warp-specialize-attention on the tile-level IR: on sm_90a the FlashAttention sample's whole
# kernel body becomes one tp::WsAttention call (persistent grid: one block per work unit in
# the IR, capped at the device's SM count at launch; 3 warpgroups, one shared
# region for Q and the K/V rings) reading Q, K, V through 3-D tensor maps over [batch * heads,
# seq, dim]; the scale and the causal flag come from the DSL. sm_90 keeps the DSL's kernel.
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a --print-after=warp-specialize-attention --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a -D is_causal=True -D seq_q=1000 -D seq_kv=1000 --print-after=warp-specialize-attention --emit lowered 2>&1 | FileCheck %s --check-prefix=CAUSAL
# RUN: %tilec compile %samples/flash_attention.py --arch sm_90 --print-after=warp-specialize-attention --emit lowered 2>&1 | FileCheck %s --check-prefix=SM90 --implicit-check-not=tp.ws
# CHECK: IR after warp-specialize-attention
# CHECK: # attr tp.tma_maps = Q:64x128x1:128:32x4096x128;K:64x128x1:128:32x4096x128;V:64x128x1:128:32x4096x128
# CHECK: # attr tp.ws = 1
# CHECK: with T.Kernel(1024, threads=384) as tp_pid:
# CHECK-NEXT: tp_fa_smem = T.alloc_shared((163920,), "uint8")
# CHECK-NEXT: T.evaluate(T.tp.call("tp::WsAttentionKernel<tp::WsAttention<half_t, 128, 128, 2, 2, false, true, true>, half_t, false, true>::run", T.tp.addr_w(tp_fa_smem[0]), T.tp.tma_desc(0), T.tp.tma_desc(1), T.tp.tma_desc(2), T.tp.addr_w(Output[0, 0, 0, 0]), 4096, 32, 0.127517431974411))
# CAUSAL: IR after warp-specialize-attention
# CAUSAL: # attr tp.tma_maps = Q:64x128x1:128:32x1000x128;K:64x128x1:128:32x1000x128;V:64x128x1:128:32x1000x128
# CAUSAL: with T.Kernel(128, threads=384) as tp_pid:
# CAUSAL: T.tp.call("tp::WsAttentionKernel<tp::WsAttention<half_t, 128, 128, 2, 2, true, true, true>, half_t, true, true>::run", {{.*}}, 1000, 32, 0.127517431974411))
# SM90: IR after warp-specialize-attention
# SM90: with T.Kernel(32, 32, 1, threads=128) as (bx, by, bz):
# SM90: for k in T.Pipelined(64, num_stages=2):
