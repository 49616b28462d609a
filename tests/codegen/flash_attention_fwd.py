# FlashAttention-2 forward shape (TileLang example_mha_fwd_bshd, one head): gemm into acc_s,
# row max / sum over dim=1 through the accumulator's row layout, rescales over acc_s / acc_o rows,
# acc_s cast to fp16 in registers and fed to gemm_rs as the A operand.
# RUN: %tilec compile %s --emit cuda --no-lineinfo | FileCheck %s
# CHECK: float acc_s[32];
# CHECK: half_t acc_s_cast[32];
# CHECK: float m[2];
# CHECK: tp::gemm_ss<64, 64, 64, 4, 1, false, true, half_t, true>(&Q_shared[0], &K_shared[((k % 2) * 4096)], &acc_s[0]);
# CHECK: tp::reduce_rows<tp::AccLayout<64, 64, 4, 1>, tp::ReduceOp::Max, false>(&acc_s[0], &m[0], nullptr, tx);
# CHECK: acc_s[tp_f_5] = tp::exp2((acc_s[tp_f_5] - m[(((tp_f_5 / 32) * 2) + ((tp_f_5 % 4) / 2))]));
# CHECK: tp::reduce_rows<tp::AccLayout<64, 64, 4, 1>, tp::ReduceOp::Sum, true>(&acc_s[0], &ssum[0], nullptr, tx);
# CHECK: l[tp_s] = ((l[tp_s] * tp::exp2((m_prev[tp_s] - m[tp_s]))) + ssum[tp_s]);
# CHECK: tp::frag_cvt_pairs<32, half_t>(&acc_s[0], &acc_s_cast[0]);
# CHECK: tp::gemm_rs<64, 64, 64, 4, 1, false, half_t, half_t, true>(&acc_s_cast[0], &V_shared[((k % 2) * 4096)], &acc_o[0]);
# sm_90 has TMA: the accumulator leaves through staged TMA stores (one warpgroup, 64-row panels).
# CHECK: tp::frag_store_tma<tp::AccLayout<64, 64, 4, 1>, half_t, 2, 1>(&acc_o[0], &tp_store_stage[0], &tp_tma_0, tx, 0, (bx * 64));
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[3])
def flash_fwd(seq_q=128, seq_kv=256):
    @T.prim_func
    def main(Q: T.Tensor((seq_q, 64), "float16"), K: T.Tensor((seq_kv, 64), "float16"), V: T.Tensor((seq_kv, 64), "float16"), O: T.Tensor((seq_q, 64), "float16")):
        with T.Kernel(T.ceildiv(seq_q, 64), threads=128) as bx:
            Q_shared = T.alloc_shared([64, 64], "float16")
            K_shared = T.alloc_shared([64, 64], "float16")
            V_shared = T.alloc_shared([64, 64], "float16")
            acc_s = T.alloc_fragment([64, 64], "float32")
            acc_s_cast = T.alloc_fragment([64, 64], "float16")
            acc_o = T.alloc_fragment([64, 64], "float32")
            m = T.alloc_fragment([64], "float32")
            m_prev = T.alloc_fragment([64], "float32")
            l = T.alloc_fragment([64], "float32")
            ssum = T.alloc_fragment([64], "float32")
            T.copy(Q[bx * 64, 0], Q_shared)
            T.fill(acc_o, 0)
            T.fill(l, 0)
            T.fill(m, -T.infinity("float32"))
            for k in T.Pipelined(T.ceildiv(seq_kv, 64), num_stages=2):
                T.copy(K[k * 64, 0], K_shared)
                T.clear(acc_s)
                T.gemm(Q_shared, K_shared, acc_s, transpose_B=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(m, m_prev)
                T.reduce_max(acc_s, m, dim=1, clear=False)
                for i, j in T.Parallel(64, 64):
                    acc_s[i, j] = T.exp2(acc_s[i, j] - m[i])
                T.reduce_sum(acc_s, ssum, dim=1)
                for i in T.Parallel(64):
                    l[i] = l[i] * T.exp2(m_prev[i] - m[i]) + ssum[i]
                T.copy(acc_s, acc_s_cast)
                for i, j in T.Parallel(64, 64):
                    acc_o[i, j] *= T.exp2(m_prev[i] - m[i])
                T.copy(V[k * 64, 0], V_shared)
                T.gemm(acc_s_cast, V_shared, acc_o, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(64, 64):
                acc_o[i, j] /= l[i]
            T.copy(acc_o, O[bx * 64, 0])

    return main
