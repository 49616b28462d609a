# Bias + GELU on the accumulator: a T.Parallel loop over the fragment becomes a per-thread
# unrolled loop over its 128 registers with (i, j) from the mma accumulator layout.
# RUN: %tilec compile %samples/gemm_bias_gelu.py --emit cuda --no-lineinfo -D M=256 -D N=256 -D K=256 | FileCheck %s
# CHECK: tp::gemm_ss<128, 128, 32, 2, 2, false, false, half_t, true>
# CHECK: for (int tp_f_1 = 0; tp_f_1 < 128; ++tp_f_1) {
# CHECK-NEXT: const int j = ((((((tx / 32) / 2) * 64) + (((tp_f_1 / 4) % 8) * 8)) + (2 * (tx % 4))) + (tp_f_1 % 2));
# CHECK: bias[tp::min(((bx * 128) + j), 255)]
# CHECK: C_local[tp_f_1] =
# CHECK: tp::frag_store_global<tp::AccLayout<128, 128, 2, 2>, true>
