# RUN: %tilec run %s --device cpu 2>&1 | FileCheck %s
# A kernel written at thread level runs each block as its threads on the interpreter, unless a
# tile op sits under a branch on the thread index that is no interval of it (here a T.copy the
# even threads run; one under `tx < 16` would be a role of threads 0-15, run as threads): then
# the block runs as one program in which the thread index reads 0, it computes only thread 0's
# share, and the run says so at the line that reads the index (the run itself goes through).
# CHECK: warn_thread_index_on_interpreter.py:[[@LINE+13]]:{{[0-9]+}}: warning: the CPU interpreter runs each block as one program, where the thread index `tx` reads 0{{.*}} [ThreadIndexOnInterpreter]
# CHECK: output B: float32[32]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale(N=32):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding()
            tile = T.alloc_shared((N,), "float32")
            if tx % 2 == 0:
                T.copy(A[0:16], tile[0:16])
            B[tx] = tile[tx] * 2.0

    return main
# tests/cli/thread_index_warning.test runs this kernel too, for the warning's JSON (mind its line numbers).
