# The PTX shows the machinery on every target: mma.sync m16n8k16 + ldmatrix + cp.async on
# sm_80 and newer; two m16n8k8 per k16 step and synchronous copies on sm_75.
# RUN: %tilec compile %samples/gemm.py --emit ptx --arch sm_90 -D M=512 -D N=512 -D K=512 | FileCheck %s --check-prefix=SM90
# RUN: %tilec compile %samples/gemm.py --emit ptx --arch sm_75 -D M=512 -D N=512 -D K=512 | FileCheck %s --check-prefix=SM75
# SM90: .target sm_90
# SM90-DAG: cp.async.cg.shared.global
# SM90-DAG: cp.async.wait_group
# SM90-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
# SM90-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
# SM90-DAG: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
# SM90-DAG: bar.sync
# SM75: .target sm_75
# SM75-NOT: cp.async
# SM75: mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32
