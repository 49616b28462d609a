# A factory defined in the body of a plain function (TileLang's autotuning scripts:
# `def get_best_config(M, N, K): def kernel(block_M, ...): ...`) is the kernel "outer.inner":
# its parameters, and the outer function's, bind with -D; with every outer parameter known the
# outer body before the def runs, so the inner one reads its locals (`offset` here).
# RUN: %tilec compile %s -k scaled.kernel -D rows=64 -D cols=16 --emit=ir | FileCheck %s
# CHECK: with T.Kernel(2, threads=32) as bx:
# CHECK: Y[bx * 32 + i, j] = X[bx * 32 + i, j] * 3.0 + 3e+01
# RUN: %tilec run %s -k scaled.kernel -D rows=64 -D cols=16 -D scale=3.0 -D block=16 --device cpu | FileCheck %s --check-prefix=CPU
# CPU: kernel: scaled.kernel  grid (4, 1, 1)
# Without the outer function's required `rows`, its body does not run: the first name the
# kernel reads of it is unknown, at its line.
# RUN: not %tilec compile %s -k scaled.kernel -D cols=16 2>&1 | FileCheck %s --check-prefix=MISSING
# MISSING: factory_in_function.py:[[@LINE+12]]:{{[0-9]+}}: error: name `rows` is not defined
# A name the kernel does not take is refused as before.
# RUN: not %tilec compile %s -k scaled.kernel -D rows=8 -D cols=8 -D nope=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
# UNKNOWN: `nope`
import tilelang.language as T


def scaled(rows, cols, scale=3.0):
    offset = scale * 10

    def kernel(block=32):
        @T.prim_func
        def main(X: T.Tensor((rows, cols), "float32"), Y: T.Tensor((rows, cols), "float32")):
            with T.Kernel(T.ceildiv(rows, block), threads=32) as bx:
                for i, j in T.Parallel(block, cols):
                    Y[bx * block + i, j] = X[bx * block + i, j] * scale + offset

        return main

    return kernel
