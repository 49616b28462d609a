# sm_90a: the tutorial GEMM with Hopper tiles becomes a persistent (one block per SM, tiles in
# T.use_swizzle's panel order) warp-specialized kernel: a producer warpgroup streams A and B
# with TMA (tensor maps as __grid_constant__ parameters) into an mbarrier ring, two consumer
# warpgroups run wgmma and store the accumulators. sm_90 (no "a") keeps cp.async + mma.sync,
# with the same DSL. The tile's T.copy(C_local, C[...]) becomes a subtiled TMA store (a third
# tensor map; two 8 KiB panels per consumer warpgroup, so the ring keeps its 4 slots: 4 x 48
# KiB + 32 KiB at 196608), waiting only for the store two panels back (wait_group.read 1).
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 | FileCheck %s --check-prefix=CUDA
# RUN: %tilec compile %samples/gemm.py --emit ptx --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %samples/gemm.py --emit ptx --arch sm_90 -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 | FileCheck %s --check-prefix=SM90 --implicit-check-not=wgmma --implicit-check-not=cp.async.bulk.tensor --implicit-check-not=setmaxnreg
# RUN: %tilec compile %samples/gemm_bias_gelu.py --emit ptx --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 | FileCheck %s --check-prefix=EPI
# CUDA: #include "tp_ws_gemm.cuh"
# CUDA: __launch_bounds__(384, 1) matmul_kernel(const half_t* __restrict__ A, const half_t* __restrict__ B, half_t* __restrict__ C, const __grid_constant__ tp::TmaDesc tp_tma_0, const __grid_constant__ tp::TmaDesc tp_tma_1, const __grid_constant__ tp::TmaDesc tp_tma_2)
# CUDA: extern __shared__ __align__(1024) unsigned char tp_smem_raw[];
# CUDA: const int tp_pid = blockIdx.x;
# CUDA: float C_local[128];
# CUDA: half_t* tp_ws_cstage = reinterpret_cast<half_t*>(tp_smem + 196608);
# CUDA: tp::WsGemm<half_t, 128, 256, 64, 4, 2, false, false>::init(
# CUDA: if ((tx >= 256)) {
# CUDA-NEXT: tp::setmaxnreg_dec<40>();
# CUDA: for (int tp_tile = 0; tp_tile < tp::floordiv(((512 + (static_cast<int>(gridDim.x) - 1)) - tp_pid), static_cast<int>(gridDim.x)); ++tp_tile) {
# CUDA: tp::WsGemm<half_t, 128, 256, 64, 4, 2, false, false>::produce(&tp_tma_0, &tp_tma_1, &A_shared[0], &B_shared[0], &tp_ws_barriers[0], ((tp_tile * 64) + k), (k * 64), (by * 128), (bx * 256), (k * 64));
# CUDA: } else {
# CUDA-NEXT: tp::setmaxnreg_inc<232>();
# CUDA: for (int tp_tile = 0;
# CUDA: ::consume(&A_shared[0], &B_shared[0], &tp_ws_barriers[0], ((tp_tile * 64) + k), (k == 0), &C_local[0], tx);
# CUDA: ::finish(
# CUDA: ::store_tma(&C_local[0], &tp_ws_cstage[0], &tp_tma_2, (bx * 256), (by * 128), tx);
# CUDA: ::drain_stores(tx);
# PTX: .target sm_90a
# PTX-DAG: .param .align 128 .b8 matmul_kernel_param_3[128]
# PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
# PTX-DAG: mbarrier.arrive.expect_tx.shared::cta.b64
# PTX-DAG: mbarrier.try_wait.parity.shared::cta.b64
# PTX-DAG: setmaxnreg.dec.sync.aligned.u32 40
# PTX-DAG: setmaxnreg.inc.sync.aligned.u32 232
# PTX-DAG: wgmma.fence.sync.aligned
# PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
# PTX-DAG: wgmma.commit_group.sync.aligned
# PTX-DAG: wgmma.wait_group.sync.aligned 1
# PTX-DAG: cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
# PTX-DAG: fence.proxy.async.shared::cta
# PTX-DAG: cp.async.bulk.wait_group.read 1
# SM90: .target sm_90
# SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# EPI: .target sm_90a
# EPI-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
# EPI-DAG: cp.async.bulk.tensor.2d
# The exact GELU of the epilogue is tp::gelu_erf (math-idioms): one ex2, no erff.
# EPI-DAG: ex2.approx.ftz.f32
# EPI-NOT: erf
