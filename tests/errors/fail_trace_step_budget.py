# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_trace_step_budget.py:13:{{[0-9]+}}: error: trace-time evaluation ran more than 20000000 steps; a Python loop in the factory is too long (unroll less, or use `T.serial`) [TraceStepBudget]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    s = 0
    # 10^10 iterations at trace time: stopped instead of hanging.
    for i in range(100000):
        for j in range(100000):
            s += 1
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
