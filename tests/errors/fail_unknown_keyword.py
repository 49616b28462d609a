# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_unknown_keyword.py:11:33: error: `T.Pipelined` got an unexpected keyword argument `num_stage`; did you mean `num_stages` [UnknownKeyword]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        for i in T.Pipelined(4, num_stage=2):
            T.clear(A)
