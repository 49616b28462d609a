# RUN: not %tilec compile %s --emit=cuda 2>&1 | FileCheck %s
# CHECK: fail_bad_header_arg.py:7:25: error: invalid syntax: cannot parse `block_N=(64,` in the `# tileplay: args` header line; expected NAME=VALUE with a Python value [InvalidSyntax]
# RUN: not %tilec run %s --device cpu 2>&1 | FileCheck %s --check-prefix=EMPTY
# EMPTY: fail_bad_header_arg.py:8:33: error: invalid syntax: cannot parse `N=` in the `# tileplay: cpu-args` header line; expected NAME=VALUE with a Python value [InvalidSyntax]
#
# tileplay: kernel=k
# tileplay: args N=1024 block_N=(64,
# tileplay: cpu-args block_N=64 N=
import tilelang
import tilelang.language as T


@tilelang.jit
def k(N, block_N=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), threads=128) as bx:
            for i in T.Parallel(block_N):
                A[bx * block_N + i] = 1.0

    return main
