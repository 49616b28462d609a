# A trace-time loop of 2M steps: under the default budget (20M) it compiles; under the fuzz
# target's (1M) it must end in the located TraceStepBudget error, in about a second under ASan
# (the default budget's 20M steps took more than the 20 s per-input timeout there).
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    s = 0
    for i in range(2000000):
        s += 1
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        T.clear(A)
