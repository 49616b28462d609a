# insert-syncs on a serial K loop (no pipelining): a barrier before the tile copies (the
# previous iteration's gemm may still read the tiles) and one between the copies and the gemm;
# none between the two copies (merge-async-waits issues both before one wait), none around the
# register-only epilogue.
# RUN: %tilec compile %S/layout_inference.py --emit lowered --print-after=insert-syncs 2>&1 | FileCheck %s
# CHECK-LABEL: IR after insert-syncs
# CHECK: for k in T.serial(2):
# CHECK-NEXT: T.evaluate(T.__syncthreads())
# CHECK-NEXT: T.evaluate(T.tp.call("tp::copy_g2s<128, 32, 128, half_t, true, true>"
# CHECK-NEXT: T.evaluate(T.tp.call("tp::copy_g2s<32, 128, 128, half_t, true, true>"
# CHECK-NEXT: T.evaluate(T.tp.call("tp::cp_async_commit"))
# CHECK-NEXT: T.evaluate(T.tp.call("tp::cp_async_wait<0>"))
# CHECK-NEXT: T.evaluate(T.__syncthreads())
# CHECK-NEXT: T.evaluate(T.tp.call("tp::gemm_ss<
# CHECK-NEXT: T.evaluate(T.tp.call("tp::reduce_rows<
# CHECK-NOT: __syncthreads
# CHECK: # attr out_idx
