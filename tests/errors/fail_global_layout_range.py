# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_global_layout_range.py:12:70: error: output 1 of the `T.Layout` (`i - j`) has no provable non-negative range; use +, -, *, // and % by constants of the indices [TypeMismatch]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(N=64):
    @T.prim_func
    def main(A: T.Tensor((N, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            T.annotate_layout({A: T.Layout(A.shape, lambda i, j: [j, i - j])})
            T.fill(A, 1.0)

    return main
