# RUN: %tilec compile %samples/flash_attention.py --arch sm_90a -D block_N=128 --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec compile %samples/gemm.py --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 --emit cuda --no-lineinfo | FileCheck %s --check-prefix=GEMM
# The TMA-store epilogue's staging buffer is split by warpgroup, and tp::frag_store_tma orders
# each warpgroup's use of its half itself (its bulk-store waits and a named barrier of that
# warpgroup). insert_syncs therefore adds no barrier of all consumers before the store in a
# persistent unit loop, where the previous unit's store would otherwise look like a write
# after write: the two ping-pong warpgroups of an attention kernel finish their tiles half an
# iteration apart and would be lined up again at every tile.
# CHECK: for (int tp_unit_1 = 0;
# CHECK: tp::named_barrier_sync(2, 256);
# CHECK-NOT: consumer_sync
# CHECK-NOT: __syncthreads
# CHECK: tp::frag_store_tma<
# GEMM: for (int tp_unit_1 = 0;
# GEMM-NOT: consumer_sync
# GEMM-NOT: __syncthreads
# GEMM: tp::frag_store_tma<
