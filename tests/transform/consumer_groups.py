# consumer groups (producer-consumer, sm_90a): a GEMM whose one consumer warpgroup computes a
# 128 x 128 tile runs two column tiles per launched block once the grid is two waves deep: the
# producer loads each A tile once and each group's B tile apart (one full barrier expecting all
# three), the grid's x extent halves, and each group indexes its own B slot and TMA-store stage.
# A grid too small for two waves keeps one block per tile and says why; tp.consumer_groups=1
# switches the groups off, =2 forces them on a small grid. A loop whose trip count depends on
# bx (a causal bound) cannot share one producer between two bx blocks, so the groups go along
# by instead (the producer's loop would run one group's count for both).
# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda --no-lineinfo -D uneven=True 2>&1 | FileCheck %s --check-prefix=UNEVEN
# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda --no-lineinfo 2>&1 | FileCheck %s --check-prefix=BIG
# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda --no-lineinfo -D M=1024 -D N=1024 2>&1 | FileCheck %s --check-prefix=SMALL
# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda --no-lineinfo --pass-config tp.consumer_groups=1 2>&1 | FileCheck %s --check-prefix=OFF
# RUN: %tilec compile %s --arch sm_90a --remarks --emit cuda --no-lineinfo -D M=1024 -D N=1024 --pass-config tp.consumer_groups=2 2>&1 | FileCheck %s --check-prefix=FORCED
# BIG: remark: consumer groups: blocks 2 at a time along block axis 0 run as one, sharing the loads of `A_shared`
# BIG: #define TP_CONSUMER_GROUPS 1
# BIG: __launch_bounds__(384, 1)
# BIG: if (threadIdx.x >= 256) {
# BIG: tp::ring_acquire({{.*}}, 24576);
# BIG-NEXT: tp::tma_load(&A_shared[{{.*}}], &tp_tma_1, {{.*}}, (k * 32), (by * 128));
# BIG-NEXT: tp::tma_load(&B_shared[((tp_A_shared_p_slot * 2) * 4096)], &tp_tma_2, {{.*}}, (bx * 256), (k * 32));
# BIG: tp::tma_load(&B_shared[(((tp_A_shared_p_slot * 2) + 1) * 4096)], &tp_tma_2, {{.*}}, (((bx * 2) + 1) * 128), (k * 32));
# BIG: } else {
# BIG: const int tp_group = threadIdx.x / 128;
# BIG-NEXT: const int tp_group_block = bx * 2 + tp_group;
# BIG-NEXT: const int tp_group_thread = threadIdx.x % 128;
# BIG: const int bx = tp_group_block;
# BIG-NEXT: const int tx = tp_group_thread;
# BIG: tp::gemm_wgmma_ss<128, 128, 32, 4, 1, false, false, half_t>(&A_shared[(tp_A_shared_c_slot * 4096)], &B_shared[(((tp_A_shared_c_slot * 2) + tp_group) * 4096)]
# BIG: &tp_store_stage[((tp_group * 128) * 128)], &tp_tma_0, tx, (bx * 128), (by * 128));
# SMALL: remark: consumer groups (two blocks of one consumer warpgroup sharing one producer's loads) not used: no block axis has an even constant extent, loads that do not depend on it, and a grid of 528 blocks or more
# SMALL-NOT: TP_CONSUMER_GROUPS
# SMALL: __launch_bounds__(256, 2)
# OFF-NOT: consumer groups
# OFF-NOT: TP_CONSUMER_GROUPS
# OFF: __launch_bounds__(256, 2)
# FORCED: remark: consumer groups: blocks 2 at a time along block axis 0
# FORCED: __launch_bounds__(384, 1)
# UNEVEN: remark: consumer groups: blocks 2 at a time along block axis 1 run as one, sharing the loads of `B_shared`
# UNEVEN: const int tp_group_block = by * 2 + tp_group;
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M=4096, N=4096, K=4096, block_M=128, block_N=128, block_K=32, uneven=False):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            T.clear(C_local)
            steps = T.min(T.ceildiv(K, block_K), bx + 1) if uneven else T.ceildiv(K, block_K)
            for k in T.Pipelined(steps, num_stages=3):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
