# tilelang.tools.cuda.iket: `with T.Kernel(...) as bx, iket.range(...)` (a `with` of several
# context managers runs as nested ones), iket.mark with and without a payload, and
# range_push / range_pop. Each event is a `pmevent.mask` of its id (TileLang's numbering: one id
# per (kind, name), 31 for every range end); the CPU runs compute the same outputs as without
# the events. A name reused with another payload type, an unmatched range_pop and a payload
# dtype iket does not record are TileLang's own errors.
# RUN: %tilec compile %s --emit cuda | FileCheck %s
# RUN: %tilec compile %s --emit ptx | FileCheck --check-prefix=PTX %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: %tilec run %s --device cpu-interp | FileCheck --check-prefix=CPU %s
# RUN: not %tilec compile %s --emit ir -D bad=retype 2>&1 | FileCheck --check-prefix=RETYPE %s
# RUN: not %tilec compile %s --emit ir -D bad=pop 2>&1 | FileCheck --check-prefix=POP %s
# RUN: not %tilec compile %s --emit ir -D bad=dtype 2>&1 | FileCheck --check-prefix=DTYPE %s
# CHECK: #include "tp_iket.cuh"
# CHECK: tp::iket_event<1>();
# CHECK: tp::iket_event<2>(((bx * 128) + tx));
# CHECK: C[((bx * 128) + tx)] =
# CHECK: tp::iket_event<3>();
# CHECK-NEXT: tp::iket_event<4>(1.5f);
# CHECK: tp::iket_event<31>();
# CHECK: tp::iket_event<31>();
# PTX-COUNT-6: pmevent.mask
# CPU: output C: float32[256] mean=127.5 rms=147.4 min=0 max=255
# RETYPE: iket_events.py:[[@LINE+17]]:{{[0-9]+}}: error: `raise` at trace time: ValueError: IKET event 'store' was first registered with payload type 'int32', but is now used with 'NoPayload' [PythonException]
# POP: iket_events.py:[[@LINE+20]]:{{[0-9]+}}: error: `raise` at trace time: RuntimeError: iket.range_pop('other') does not match active range 'tail' [PythonException]
# DTYPE: iket_events.py:[[@LINE+22]]:{{[0-9]+}}: error: `raise` at trace time: ValueError: Unsupported IKET payload dtype: 'float16' [PythonException]
import tilelang
import tilelang.language as T
from tilelang.tools.cuda import iket


@tilelang.jit(out_idx=[-1])
def marked(n=256, threads=128, bad=""):
    @T.prim_func
    def main(C: T.Tensor((n,), T.float32)):
        with T.Kernel(T.ceildiv(n, threads), threads=threads) as bx, iket.range("block"):
            for i in T.Parallel(threads):
                iket.mark("store", payload=iket.payload(bx * threads + i, dtype="int32"))
                C[bx * threads + i] = T.cast(bx * threads + i, T.float32)
            if bad == "retype":
                iket.mark("store")
            iket.range_push("tail")
            iket.mark("done", payload=1.5)
            if bad == "pop":
                iket.range_pop("other")
            iket.range_pop("tail")
            if bad == "dtype":
                iket.mark("half", payload=iket.payload(1.0, dtype="float16"))

    return main
