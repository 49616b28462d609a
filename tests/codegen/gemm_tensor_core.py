# The tutorial GEMM: cp.async tile copies into swizzled, double-buffered shared tiles, gemm_ss
# on the register accumulator, one paired store at the end, rasterized blocks.
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_80 -D M=256 -D N=256 -D K=256 | FileCheck %s
# CHECK: __shared__ __align__(16) unsigned char tp_smem[32768];
# CHECK: tp::rasterize(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, 10, false);
# CHECK: float C_local[128];
# CHECK: for (int tp_stage = 0; tp_stage < 1; ++tp_stage) {
# CHECK: tp::copy_g2s<128, 32, 128, half_t, true, true>(&A_shared[(tp_stage * 4096)]
# CHECK: tp::cp_async_commit();
# CHECK: for (int k = 0; k < 8; ++k) {
# CHECK-NEXT: tp::cp_async_wait<0>();
# CHECK-NEXT: __syncthreads();
# CHECK: tp::copy_g2s<32, 128, 128, half_t, true, true>(&B_shared[(((k + 1) % 2) * 4096)]
# CHECK: tp::gemm_ss<128, 128, 32, 2, 2, false, false, half_t, true>(&A_shared[((k % 2) * 4096)], &B_shared[((k % 2) * 4096)], &C_local[0]);
# CHECK-NOT: __syncthreads
# CHECK: tp::frag_store_global<tp::AccLayout<128, 128, 2, 2>, true>(&C_local[0], &C[
