# Striped fragments copied to/from fp16 global memory hold runs of 8 contiguous elements
# (thread (e / 8) % T, slot (e / (8*T)) * 8 + e % 8), so samples/softmax.py loads and stores
# each run with one 16-byte access; the reductions and T.Parallel loops use the same mapping.
# RUN: %tilec compile %samples/softmax.py --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec compile %samples/softmax.py --emit ptx --no-lineinfo | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %samples/softmax.py --emit cuda --no-lineinfo -D M=1001 -D block_M=2 | FileCheck %s --check-prefix=ROWS
# RUN: %tilec compile %samples/softmax.py --emit cuda --no-lineinfo -D dtype=float32 | FileCheck %s --check-prefix=F32
# CHECK: #include "tp_copy_striped.cuh"
# CHECK: float x[32];
# The row guard `bx < 8192` is proved by the grid (8192 blocks) and folded away.
# CHECK-NOT: if ((bx < 8192))
# CHECK: tp::striped_load_global<8192, 8192, 256, 8, true>(&x[0], &X[(bx * 8192)], 8192, 1, 8192, tx);
# CHECK-NEXT: tp::reduce_striped<1, 8192, 256, 1, tp::ReduceOp::Max, true, 8>(&x[0], &row_max[0], &tp_reduce_scratch[0], tx);
# CHECK: tp::reduce_striped<1, 8192, 256, 1, tp::ReduceOp::Sum, true, 8>(
# CHECK: tp::striped_store_global<8192, 8192, 256, 8, true>(&x[0], &Y[(bx * 8192)], 8192, 1, 8192, tx);
# CHECK-NOT: X[
# PTX-COUNT-4: ld.global.nc.v4.u32
# PTX-NOT: ld.global.nc.u16
# PTX-COUNT-4: st.global.v4.u32
# PTX-NOT: st.global.u16
# Two rows per block, 1001 rows: the last block's second row is checked at run time.
# ROWS: float x[64];
# ROWS: tp::striped_load_global<16384, 8192, 256, 8, false>(&x[0], &X[((bx * 2) * 8192)], 8192, (1001 - (bx * 2)), 8192, tx);
# ROWS: tp::reduce_striped<2, 8192, 256, 1, tp::ReduceOp::Max, true, 8>(
# ROWS: tp::striped_store_global<16384, 8192, 256, 8, false>(&x[0], &Y[((bx * 2) * 8192)], 8192, (1001 - (bx * 2)), 8192, tx);
# fp32 tensors: runs of 4 (16 bytes).
# F32: tp::striped_load_global<8192, 8192, 256, 4, true>(
# F32: tp::striped_store_global<8192, 8192, 256, 4, true>(
