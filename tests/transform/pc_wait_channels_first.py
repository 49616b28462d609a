# RUN: %tilec compile %s --arch sm_90a --print-after=wgmma-waits --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_90a --no-lineinfo --emit cuda 2>&1 | FileCheck %s --check-prefix=CUDA
# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda -o %t.cu 2>&1 | FileCheck %s --check-prefix=REMARK
# wgmma-waits: a group that reads registers (Q hoisted into an RS operand) keeps its wait above
# the next copy from global into shared memory, which producer_consumer turns into an mbarrier
# spin loop: with that loop between an RS wgmma's issue and its wait, ptxas 13.0 gave P the
# registers of the loop-invariant Q.
# The V copy sits between the two gemms, so the consumers' loop is not rotated (rotation would
# run P V of tile t in iteration t + 1, after V's ring slot was released; it failed to compile).
# The refusal is said at the loop, with the tile that stops it.
# REMARK: wgmma_waits_rs_copy.py:[[@LINE+28]]:13: remark: software pipelining of the consumer loop {{.*}} not used: `v`, which the second wgmma group reads, is copied between the two groups
# CUDA-NOT: for (int t = 1;
# CUDA: tp::mbar_wait(&tp_mbar[(6 + tp_v_c_slot)]
# CUDA: tp::gemm_wgmma_rs_packed<64, 64, 64, 4, 1, false, half_t>(&p[0], &v[(tp_v_c_slot * 4096)]
# CUDA: tp::ring_release(&tp_mbar[(8 + tp_v_c_slot)]);
# CHECK: IR after wgmma-waits
# CHECK: T.copy(K[
# CHECK-NEXT: T.evaluate(T.tp.async_call("tp::gemm_wgmma_rs_packed<64, 64, 64, 4, 1, true, half_t, true>", T.tp.addr_r(q_regs[0])
# CHECK-NEXT: T.evaluate(T.tp.async_wait(0, T.tp.addr_w(s[0]), T.tp.addr_r(k[0, 0]), T.tp.addr_r(q_regs[0])))
# CHECK-NEXT: T.copy(V[
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
