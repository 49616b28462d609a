# T.Pipelined on sm_75 (no cp.async): the copied tiles are staged through registers into two
# shared buffers whatever num_stages says. Tile 0 goes global -> registers -> stage 0 before
# the loop; each iteration loads tile k+1 into registers before the gemm on stage k % 2,
# stores them into the other stage after it and ends with one barrier. Edge tiles keep their
# rows_valid/cols_valid zero-fill arguments (no IN_BOUNDS at 200 = 1.5625 tiles). sm_80 keeps
# the cp.async multi-buffer, and a tile too big to hold in registers keeps synchronous copies.
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_75 -D M=200 -D N=200 -D K=200 -D num_stages=3 | FileCheck %s --check-prefix=SM75
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_75 -D M=256 -D N=256 -D K=256 | FileCheck %s --check-prefix=STATIC
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_80 -D M=200 -D N=200 -D K=200 -D num_stages=3 | FileCheck %s --check-prefix=SM80
# RUN: %tilec compile %samples/gemm.py --emit cuda --no-lineinfo --arch sm_75 -D M=256 -D N=256 -D K=256 -D block_K=64 | FileCheck %s --check-prefix=BIG
# SM75: __shared__ __align__(16) unsigned char tp_smem[32768];
# SM75-NOT: cp_async
# SM75: unsigned int B_shared_regs[16];
# SM75: unsigned int A_shared_regs[16];
# SM75-NEXT: tp::copy_g2r<128, 32, 128, half_t, true>(&A_shared_regs[0], &A[((by * 128) * 200)], 200, (200 - (by * 128)), 200, tx);
# SM75-NEXT: tp::copy_g2r<32, 128, 128, half_t, true>(&B_shared_regs[0], &B[(bx * 128)], 200, 200, (200 - (bx * 128)), tx);
# SM75-NEXT: tp::copy_r2s<128, 32, 128, half_t, true>(&A_shared_regs[0], &A_shared[0], tx);
# SM75-NEXT: tp::copy_r2s<32, 128, 128, half_t, true>(&B_shared_regs[0], &B_shared[0], tx);
# SM75-NEXT: __syncthreads();
# SM75-NEXT: for (int k = 0; k < 7; ++k) {
# SM75-NEXT: if (((k + 1) < 7)) {
# SM75-NEXT: tp::copy_g2r<128, 32, 128, half_t, true>(&A_shared_regs[0], &A[(((by * 128) * 200) + ((k + 1) * 32))], 200, (200 - (by * 128)), (200 - ((k + 1) * 32)), tx);
# SM75-NEXT: tp::copy_g2r<32, 128, 128, half_t, true>(&B_shared_regs[0], &B[((((k + 1) * 32) * 200) + (bx * 128))], 200, (200 - ((k + 1) * 32)), (200 - (bx * 128)), tx);
# SM75-NEXT: }
# SM75-NEXT: tp::gemm_ss<128, 128, 32, 2, 2, false, false, half_t, true>(&A_shared[((k % 2) * 4096)], &B_shared[((k % 2) * 4096)], &C_local[0]);
# SM75-NEXT: if (((k + 1) < 7)) {
# SM75-NEXT: tp::copy_r2s<128, 32, 128, half_t, true>(&A_shared_regs[0], &A_shared[(((k + 1) % 2) * 4096)], tx);
# SM75-NEXT: tp::copy_r2s<32, 128, 128, half_t, true>(&B_shared_regs[0], &B_shared[(((k + 1) % 2) * 4096)], tx);
# SM75-NEXT: }
# SM75-NEXT: __syncthreads();
# SM75-NEXT: }
# SM75-NEXT: tp::frag_store_global<tp::AccLayout<128, 128, 2, 2>>(
# STATIC: tp::copy_g2r<128, 32, 128, half_t, true, true>(&A_shared_regs[0]
# STATIC: tp::copy_r2s<32, 128, 128, half_t, true, true>(&B_shared_regs[0], &B_shared[(((k + 1) % 2) * 4096)], tx);
# SM80: __shared__ __align__(16) unsigned char tp_smem[49152];
# SM80-NOT: copy_g2r
# SM80: for (int tp_stage = 0; tp_stage < 2; ++tp_stage) {
# SM80: tp::cp_async_commit();
# SM80: for (int k = 0; k < 7; ++k) {
# SM80-NEXT: tp::cp_async_wait<1>();
# SM80-NEXT: __syncthreads();
# SM80: tp::copy_g2s<128, 32, 128, half_t, true>(&A_shared[(((k + 2) % 3) * 4096)]
# SM80: tp::cp_async_commit();
# SM80-NEXT: tp::gemm_ss<128, 128, 32, 2, 2, false, false, half_t, true>(&A_shared[((k % 3) * 4096)]
# SM80-NOT: copy_r2s
# BIG-NOT: copy_g2r
# BIG: tp::copy_g2s<128, 64, 128, half_t, true, true>(&A_shared[(((k + 1) % 2) * 8192)]
# BIG: tp::gemm_ss<128, 128, 64, 2, 2, false, false, half_t, true>(&A_shared[((k % 2) * 8192)]
