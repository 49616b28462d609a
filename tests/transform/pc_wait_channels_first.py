# RUN: %tilec compile %s --arch sm_90a --no-lineinfo --emit cuda 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_90a --no-lineinfo --emit cuda --pass-config tp.disable_hoist_operand=true 2>&1 | FileCheck %s --check-prefix=SS
# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
# producer_consumer: with Q hoisted into registers (the first wgmma group reads registers the
# loop never writes) and V copied after the first gemm, the consumers wait for V before the
# first issue. With V's mbarrier spin loop between the two register-operand groups, ptxas 13.0
# gave P the registers of the loop-invariant Q and the next iteration's Q K^T read P (TileLang's
# example_mha_bwd_bhsd flashattn_fwd, rel. error 0.79 on the H200).
# The V copy sits between the two gemms, so the consumers' loop is not rotated (rotation would
# run P V of tile t in iteration t + 1, after V's ring slot was released); the remark says so.
# REMARK: pc_wait_channels_first.py:[[@LINE+32]]:13: remark: software pipelining of the consumer loop {{.*}} not used: `v`, which the second wgmma group reads, is copied between the two groups
# CHECK-NOT: for (int t = 1;
# CHECK: tp::ring_release_generic(&tp_mbar[1]);
# CHECK: for (int t = 0; t < 4; ++t) {
# CHECK-NEXT: tp::mbar_wait(&tp_mbar[(2 + tp_k_c_slot)]
# CHECK-NEXT: tp::mbar_wait(&tp_mbar[(6 + tp_v_c_slot)]
# CHECK-NEXT: tp::gemm_wgmma_rs_packed<64, 64, 64, 4, 1, true, half_t, true>(&q_regs[0], &k[(tp_k_c_slot * 4096)]
# CHECK: tp::gemm_wgmma_rs_packed<64, 64, 64, 4, 1, false, half_t>(&p[0], &v[(tp_v_c_slot * 4096)]
# CHECK: tp::ring_release(&tp_mbar[(8 + tp_v_c_slot)]);
# Q read from shared memory: the loop keeps its order, V waited for after the first gemm.
# SS: tp::mbar_wait(&tp_mbar[0], tp_q_c_phase);
# SS: tp::mbar_wait(&tp_mbar[(2 + tp_k_c_slot)]
# SS-NEXT: tp::gemm_wgmma_ss<
# SS: tp::mbar_wait(&tp_mbar[(6 + tp_v_c_slot)]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[3])
def fwd(seq=256, dim=64, block_M=64, block_N=64):
    @T.prim_func
    def main(Q: T.Tensor((seq, dim), "float16"), K: T.Tensor((seq, dim), "float16"), V: T.Tensor((seq, dim), "float16"),
             O: T.Tensor((seq, dim), "float16")):
        with T.Kernel(T.ceildiv(seq, block_M), threads=128) as bx:
            q = T.alloc_shared((block_M, dim), "float16")
            k = T.alloc_shared((block_N, dim), "float16")
            v = T.alloc_shared((block_N, dim), "float16")
            s = T.alloc_fragment((block_M, block_N), "float32")
            p = T.alloc_fragment((block_M, block_N), "float16")
            o = T.alloc_fragment((block_M, dim), "float32")
            T.copy(Q[bx * block_M:(bx + 1) * block_M, :], q)
            T.fill(o, 0)
            for t in T.Pipelined(T.ceildiv(seq, block_N), num_stages=1):
                T.copy(K[t * block_N:(t + 1) * block_N, :], k)
                T.clear(s)
                T.gemm(q, k, s, transpose_B=True)
                T.copy(V[t * block_N:(t + 1) * block_N, :], v)
                for i, j in T.Parallel(block_M, block_N):
                    s[i, j] = T.exp2(s[i, j] * 0.125)
                T.copy(s, p)
                T.gemm(p, v, o)
            T.copy(o, O[bx * block_M:(bx + 1) * block_M, :])

    return main
