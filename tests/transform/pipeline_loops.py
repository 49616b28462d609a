# pipeline-loops: T.Pipelined(num_stages=3) stages the copied tiles three deep, issues two
# tiles before the loop, then per iteration waits for one group, publishes it with a barrier,
# prefetches the tile two iterations ahead into the freed stage and runs the gemm on stage k % 3.
# RUN: %tilec compile %samples/gemm.py --emit lowered --print-after=pipeline-loops -D M=512 -D N=512 -D K=512 -D num_stages=3 2>&1 | FileCheck %s
# CHECK-LABEL: IR after pipeline-loops
# CHECK: A_shared = T.alloc_shared((3, 128, 32), "float16")
# CHECK: B_shared = T.alloc_shared((3, 32, 128), "float16")
# CHECK: for tp_stage in T.unroll(2):
# CHECK-NEXT: if tp_stage < 16:
# CHECK-NEXT: T.evaluate(T.tp.call_async("tp::copy_g2s<128, 32, 128, half_t, true, true>", T.tp.addr_w(A_shared[tp_stage, 0, 0])
# CHECK: T.evaluate(T.tp.call("tp::cp_async_commit"))
# CHECK: for k in T.serial(16):
# CHECK-NEXT: T.evaluate(T.tp.call("tp::cp_async_wait<1>"))
# CHECK-NEXT: T.evaluate(T.__syncthreads())
# CHECK-NEXT: if k + 2 < 16:
# CHECK-NEXT: T.evaluate(T.tp.call_async("tp::copy_g2s<128, 32, 128, half_t, true, true>", T.tp.addr_w(A_shared[(k + 2) % 3, 0, 0])
# CHECK: T.evaluate(T.tp.call("tp::cp_async_commit"))
# CHECK-NEXT: T.evaluate(T.tp.call("tp::gemm_ss<128, 128, 32, 2, 2, false, false, half_t, true>", T.tp.addr_r(A_shared[k % 3, 0, 0]), T.tp.addr_r(B_shared[k % 3, 0, 0]), T.tp.addr_w(C_local[0])))
# CHECK: T.evaluate(T.tp.call("tp::cp_async_wait<0>"))
