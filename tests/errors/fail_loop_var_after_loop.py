# RUN: not %tilec compile %s --emit=cuda 2>&1 | FileCheck %s
# CHECK: fail_loop_var_after_loop.py:15:15: error: name `i` is not defined; it was the variable of the kernel loop at line 13, which exists only inside the loop body [UnknownName]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            # Python keeps `i` after the loop; a kernel loop's variable does not exist there.
            for i in T.serial(4):
                A[i] = 1.0
            A[i] = 2.0

    return main
