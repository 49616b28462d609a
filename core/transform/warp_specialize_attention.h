// sm_90a idiom lowering of a whole FlashAttention forward kernel onto the warp-specialized
// TMA + wgmma template (runtime/tp_ws_attention.cuh through tp_ws_attention_kernel.cuh).
// It runs on the tile-level IR and recognises exactly the kernel of samples/flash_attention.py
// (BHSD layout): Q tile copied once to shared memory; fills of acc_o, logsum and the running
// max; one T.Pipelined loop over kv tiles holding the K copy, the -inf column mask (and the
// causal mask) written into acc_s, T.gemm(Q_shared, K_shared, acc_s, transpose_B=True), the
// online softmax with one exp2 scale constant, the cast to acc_s_cast, the acc_o rescale, the
// V copy and T.gemm(acc_s_cast, V_shared, acc_o); then acc_o /= logsum and the store. Every
// statement, index and constant that changes the answer is checked; the scale and the
// causal flag are read from the IR. When all match, the kernel body becomes one call of the
// persistent overlap + ping-pong schedule (BM 128, BN 128, 2 stages, 384 threads, one block
// per SM at most) reading 3-D tensor maps {dim, seq, batch*heads}; the CPU interpreter keeps
// running the original IR, so the GPU check still compares against the user's own code.
// When anything differs the kernel is left to the ordinary lowering and, if it looked like
// attention (a pipelined loop with two gemms), attribute tp.ws_attention says why (visible
// with --print-after=warp-specialize-attention). Other targets are never touched.
#pragma once

#include "ir/ir.h"
#include "target.h"

namespace tp::transform {

ir::PrimFuncPtr warp_specialize_attention(const ir::PrimFuncPtr& func, const Target& target);

}  // namespace tp::transform
