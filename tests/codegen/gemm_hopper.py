# sm_90a: the tutorial GEMM with Hopper tiles (threads=256) through the general producer/consumer
# path: a producer warpgroup streams A (one 128-byte swizzle row of 64 halves per box) and B
# (four 128-byte panels) with TMA into one mbarrier ring (the gemm reads both first, so they are
# one channel group: one wait, one release, one acquire of 48 KB per slot), four slots deep
# (num_stages plus the slot the running wgmma group holds would be five, which does not fit in
# shared memory: each k step's group runs on while the next is issued, wait<1>, and the slot it
# read is released only then). Two consumer warpgroups of 64 x 256
# run wgmma; the accumulator leaves through TMA stores of 64 x 64 panels staged in shared memory. sm_90 (no "a") keeps cp.async + mma.sync.
# The sample's own tiles (128 x 128 x 32 on 128 threads): one warpgroup, two interleaved m64
# blocks, 64-byte swizzled A boxes of 32 halves, rings of three slots.
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 | FileCheck %s --check-prefix=CUDA
# RUN: %tilec compile %samples/gemm.py --emit ptx --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %samples/gemm.py --emit ptx --arch sm_90 -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 | FileCheck %s --check-prefix=SM90 --implicit-check-not=wgmma --implicit-check-not=shared::cluster.global.mbarrier --implicit-check-not=setmaxnreg
# RUN: %tilec compile %samples/gemm_bias_gelu.py --emit ptx --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 | FileCheck %s --check-prefix=EPI
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_90a --pass-config tp.consumer_groups=1 | FileCheck %s --check-prefix=SAMPLE
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_90a --pass-config tp.blocks_per_sm=1 --pass-config tp.consumer_groups=1 | FileCheck %s --check-prefix=ONE
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 -D threads=256 --pass-config tp.persistent=true | FileCheck %s --check-prefix=PERSIST
# tp.persistent: the grid is one block per tile (16 x 32), capped at the SM count at launch;
# each role walks the tiles with the use_swizzle rasterization, its ring position carried on.
# PERSIST: const int tp_pid = blockIdx.x;
# PERSIST-NOT: blockIdx.y
# PERSIST: int tp_A_shared_p_phase = 0;
# PERSIST: for (int tp_unit = 0; tp_unit < tp::floordiv(((512 - tp_pid) + (static_cast<int>(gridDim.x) - 1)), static_cast<int>(gridDim.x)); ++tp_unit) {
# PERSIST-NEXT: const int bx = tp::tile_coord((tp_pid + (tp_unit * static_cast<int>(gridDim.x))), 16, 32, 10, 0, 0);
# PERSIST-NEXT: const int by = tp::tile_coord((tp_pid + (tp_unit * static_cast<int>(gridDim.x))), 16, 32, 10, 0, 1);
# PERSIST: tp::ring_acquire(
# PERSIST: } else {
# PERSIST: int tp_A_shared_c_phase = 0;
# PERSIST: for (int tp_unit_1 = 0;
# PERSIST: tp::mbar_wait(
# PERSIST: tp::frag_store_tma<
# CUDA: __launch_bounds__(384, 1) matmul_kernel(const half_t* __restrict__ A, const half_t* __restrict__ B, half_t* __restrict__ C, const __grid_constant__ tp::TmaDesc tp_tma_0, const __grid_constant__ tp::TmaDesc tp_tma_1, const __grid_constant__ tp::TmaDesc tp_tma_2)
# CUDA: extern __shared__ __align__(1024) unsigned char tp_smem_raw[];
# CUDA: tp::mbar_init(&tp_mbar[4], 8);
# CUDA-NOT: tp::mbar_init(&tp_mbar[8]
# CUDA: if (threadIdx.x >= 256) {
# CUDA-NEXT: tp::setmaxnreg_dec<24>();
# CUDA: tp::ring_acquire(&tp_mbar[(4 + tp_A_shared_p_slot)], &tp_mbar[tp_A_shared_p_slot], tp_A_shared_p_phase, 49152);
# CUDA-NEXT: tp::tma_load(&A_shared[(tp_A_shared_p_slot * 8192)], &tp_tma_1, &tp_mbar[tp_A_shared_p_slot], (k * 64), (by * 128));
# CUDA-NEXT: tp::tma_load(&B_shared[(tp_A_shared_p_slot * 16384)], &tp_tma_2, &tp_mbar[tp_A_shared_p_slot], (bx * 256), (k * 64));
# CUDA: tp::tma_load(&B_shared[((tp_A_shared_p_slot * 16384) + 12288)], &tp_tma_2, &tp_mbar[tp_A_shared_p_slot], ((bx * 256) + 192), (k * 64));
# CUDA-NEXT: tp_A_shared_p_phase =
# CUDA: } else {
# CUDA-NEXT: tp::setmaxnreg_inc<240>();
# CUDA: tp::mbar_wait(&tp_mbar[tp_A_shared_c_slot], tp_A_shared_c_phase);
# CUDA-NEXT: tp::gemm_wgmma_ss<128, 256, 64, 8, 1, false, false, half_t>(&A_shared[(tp_A_shared_c_slot * 8192)], &B_shared[(tp_A_shared_c_slot * 16384)], &C_local[0], tx, false);
# CUDA-NEXT: tp::wgmma_wait<1>(), tp::wgmma_fence_operands<128>(&C_local[0]);
# CUDA-NEXT: if (tp_group_in_flight) {
# CUDA-NEXT: tp::ring_release(&tp_mbar[(4 + tp_A_shared_c_prev)]);
# CUDA-NOT: tp::ring_release
# CUDA: tp::wgmma_wait<0>(), tp::wgmma_fence_operands<128>(&C_local[0]);
# CUDA: tp::frag_store_tma<tp::AccLayout<128, 256, 8, 1>, half_t, 2, 1>(&C_local[0], &tp_store_stage[0], &tp_tma_0, tx, (bx * 256), (by * 128));
# PTX: .target sm_90a
# PTX-DAG: .param .align 128 .b8 matmul_kernel_param_3[128]
# PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
# PTX-DAG: mbarrier.arrive.expect_tx.shared::cta.b64
# PTX-DAG: mbarrier.try_wait.parity.shared::cta.b64
# PTX-DAG: setmaxnreg.dec.sync.aligned.u32 24
# PTX-DAG: setmaxnreg.inc.sync.aligned.u32 240
# PTX-DAG: wgmma.fence.sync.aligned
# PTX-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
# PTX-DAG: wgmma.commit_group.sync.aligned
# PTX-DAG: wgmma.wait_group.sync.aligned 1
# SM90: .target sm_90
# SM90: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# EPI: .target sm_90a
# EPI-DAG: wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
# EPI-DAG: cp.async.bulk.tensor.2d
# The exact GELU of the epilogue is tp::gelu_erf (math-idioms): one ex2, no erff.
# EPI-DAG: ex2.approx.ftz.f32
# EPI-NOT: erf
# One consumer warpgroup whose 83 KB of shared memory fit twice in an SM: two blocks to an
# SM, 128 registers each at launch, the consumers growing to 232 (with consumer groups off:
# at the sample's size they pair its column tiles, transform/consumer_groups.py).
# SAMPLE: __launch_bounds__(256, 2) matmul_kernel(
# SAMPLE: tp::setmaxnreg_dec<24>();
# SAMPLE: tp::tma_load(&A_shared[(tp_A_shared_p_slot * 4096)], &tp_tma_1, &tp_mbar[tp_A_shared_p_slot], (k * 32), (by * 128));
# A 128 x 256 tile on one warpgroup cannot be compiled under two blocks' 128-register cap
# (ptxas: a wgmma of N=256 holds 128 accumulator registers): it is compiled for one block.
# RUN: %tilec compile %samples/gemm.py --emit cubin -o %t.cubin --json --arch sm_90a -D M=1024 -D N=1024 -D K=1024 -D block_N=256 | FileCheck %s --check-prefix=FALLBACK
# FALLBACK: "blocks_per_sm": 1
# RUN: %tilec compile %samples/gemm.py --emit cubin -o %t.r.cubin --remarks --arch sm_90a -D M=1024 -D N=1024 -D K=1024 -D block_N=256 2>&1 | FileCheck %s --check-prefix=FALLBACK-REMARK
# FALLBACK-REMARK: remark: two blocks per SM not used: ptxas could not fit an instruction under the 128-register cap of two blocks; one block per SM gets the whole register file [FastPathNotTaken]
# A block whose rings do not fit twice in the SM runs alone, and says so at its T.Pipelined.
# RUN: %tilec compile %samples/gemm.py --emit cuda -o /dev/null --remarks --arch sm_90a -D block_K=64 -D num_stages=4 --pass-config tp.consumer_groups=1 2>&1 | FileCheck %s --check-prefix=SMEM-REMARK
# SMEM-REMARK: gemm.py:{{[0-9]+}}:{{[0-9]+}}: remark: two blocks per SM not used: the block's {{[0-9]+}} bytes of shared memory do not fit twice in the SM's 233472
# ONE: __launch_bounds__(256, 1) matmul_kernel(
# ONE-NOT: setmaxnreg
# SAMPLE: tp::setmaxnreg_inc<232>();
# SAMPLE: tp::gemm_wgmma_ss<128, 128, 32, 4, 1, false, false, half_t>(
# SAMPLE: tp::frag_store_tma<tp::AccLayout<128, 128, 4, 1, true>, half_t, 2, 1>(
