# RUN: %tilec compile %S/../gpu/data/row_group_quant.py --arch sm_90a --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec compile %S/../gpu/data/row_group_quant.py --arch sm_90a -D dtype=bfloat16 -D qtype=float8_e5m2 --emit cuda --no-lineinfo | FileCheck %s --check-prefix=BF16
# fp8 fragments copied to global memory take striped runs like fp32 and 16-bit ones: the fp8
# store no longer vetoes the runs its fp32 (or bf16) input wants, so the whole tile is 8-element
# runs, loaded 16 bytes at a time and stored 8 fp8 bytes a run, and the row reductions get the
# run length: 16 threads a row, so each row's maximum and sum stay in its threads (StripedRow,
# tests/transform/striped_rows.py).
# CHECK: tp::striped_load_global<1024, 128, 128, 8, false>(&x[0], &X[
# CHECK: tp::reduce_striped_rows<8, 128, 128, 8, tp::ReduceOp::AbsMax, true>(
# CHECK: tp::reduce_striped_rows<8, 128, 128, 8, tp::ReduceOp::Sum, true>(
# CHECK: tp::striped_store_global<1024, 128, 128, 8, false>(&q[0], &Q[
# BF16: __global__ void {{.*}}(const bfloat16_t* __restrict__ X, fp8_e5_t* __restrict__ Q,
# BF16: tp::striped_load_global<1024, 128, 128, 8, false>(&x[0], &X[
# BF16: tp::striped_store_global<1024, 128, 128, 8, false>(&q[0], &Q[
