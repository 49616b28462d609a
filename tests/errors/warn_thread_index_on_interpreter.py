# RUN: %tilec run %s --device cpu 2>&1 | FileCheck %s
# The CPU interpreter runs each block as one program in which the thread index reads 0: a
# kernel that splits its work by thread index computes only thread 0's share there, and the run
# says so at the line that reads the index (the run itself goes through).
# CHECK: warn_thread_index_on_interpreter.py:[[@LINE+12]]:{{[0-9]+}}: warning: the CPU interpreter runs each block as one program, where the thread index `tx` reads 0{{.*}} [ThreadIndexOnInterpreter]
# CHECK: output B: float32[32]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(N=32):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding()
            B[tx] = A[tx] * 2.0

    return main
# tests/cli/thread_index_warning.test runs this kernel too, for the warning's JSON (mind its line numbers).
