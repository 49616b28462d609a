# RUN: %tilec compile %s -k odd_threads --arch sm_90a --remarks --emit cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=ODD
# RUN: %tilec compile %s -k steered --arch sm_90a --remarks --emit cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=STEERED
# RUN: %tilec compile %s -k no_tma --arch sm_90a --remarks --emit cuda -o %t.cu 2>&1 | FileCheck %s --check-prefix=NOTMA
# RUN: FileCheck %s --check-prefix=NOTMACUDA < %t.cu
# RUN: %tilec compile %s -k no_tma --arch sm_90a --remarks --pass-config tl.disable_tma_lower=true --emit cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=LOWER
# RUN: %tilec compile %s -k no_tma --arch sm_80 --remarks --emit cuda -o /dev/null 2>&1 | FileCheck %s --check-prefix=SM80 --allow-empty
# On sm_90a a T.Pipelined loop that cannot take producer/consumer warp specialization says why
# at its line, and a copy the producer cannot issue says why at its own line; the kernel then
# keeps cp.async stages (or the consumers copy that tile themselves). Other targets have no
# such fast path to refuse, so they say nothing.
# ODD: fast_path_remarks.py:[[@LINE+25]]:{{[0-9]+}}: remark: warp specialization (a TMA producer warpgroup and consumer warpgroups) not used: the consumers must be whole warpgroups; the block has 192 threads; the loop keeps cp.async stages [FastPathNotTaken]
# STEERED: fast_path_remarks.py:[[@LINE+42]]:{{[0-9]+}}: remark: a TMA load by the producer not used: its position depends on values only the tile code computes; the consumer threads copy this tile [FastPathNotTaken]
# STEERED: fast_path_remarks.py:[[@LINE+40]]:{{[0-9]+}}: remark: warp specialization (a TMA producer warpgroup and consumer warpgroups) not used: no copy in the loop can be issued by a producer (the remarks at the copies say why); the loop keeps cp.async stages [FastPathNotTaken]
# NOTMA: fast_path_remarks.py:[[@LINE+55]]:{{[0-9]+}}: remark: a TMA load by the producer not used: the copy asks for disable_tma; the consumer threads copy this tile [FastPathNotTaken]
# NOTMA: fast_path_remarks.py:[[@LINE+48]]:{{[0-9]+}}: remark: a persistent grid (`tp.persistent`) not used: its 16 blocks run in one wave on 132 resident blocks; one block runs per work unit [FastPathNotTaken]
# NOTMA-NOT: remark
# The copy of A stays with the consumers (cp.async, waited at once), B is a channel.
# NOTMACUDA: tp::tma_load(&B_s[
# NOTMACUDA: tp::copy_g2s<128, 64, 256, half_t, true, true>(&A_s[0]
# NOTMACUDA-NOT: tp::tma_load(&A_s[
# LOWER: remark: warp specialization (a TMA producer warpgroup and consumer warpgroups) not used: `tl.disable_tma_lower` is set; the loop keeps cp.async stages [FastPathNotTaken]
# SM80-NOT: remark
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def odd_threads(M=512, N=512, K=512, block_M=64, block_N=96, block_K=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=192) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), "float16")
            B_s = T.alloc_shared((block_K, block_N), "float16")
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * block_M, bx * block_N])
    return main


# Rows picked by an index the kernel itself wrote: the producer cannot know them.
@tilelang.jit(out_idx=[-1])
def steered(M=512, N=512, block_M=64, block_N=64):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), Rows: T.Tensor((M,), "int32"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            row = T.alloc_shared((1,), "int32")
            A_s = T.alloc_shared((block_M, block_N), "float16")
            row[0] = Rows[bx] % (M // block_M)
            for k in T.Pipelined(T.ceildiv(N, block_N), num_stages=2):
                T.copy(A[row[0] * block_M, k * block_N], A_s)
                T.copy(A_s, C[bx * block_M, k * block_N])
    return main


@tilelang.jit(out_idx=[-1])
def no_tma(M=512, N=512, K=512, block_M=128, block_N=128, block_K=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), "float16")
            B_s = T.alloc_shared((block_K, block_N), "float16")
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s, disable_tma=True)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C[by * block_M, bx * block_N])
    return main
