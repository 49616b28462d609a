# A factory that calls plain-Python helpers from a module beside its file (`from kernel_helpers
# import ...`, as Python finds it through sys.path[0]): the helper's asserts run at trace time,
# its arithmetic (calling its own module's globals) builds the kernel's IR, and a host-only name
# imported with them (DEVICE) is harmless until used; the CPU run computes B = A * LOG2_E / 2.
# A name the module lacks is an error at the import (tests/errors/fail_import_failed.py has the
# module that does not parse and the assertion inside a helper).
# RUN: rm -rf %t && mkdir -p %t && cp %s %S/Inputs/sibling/kernel_helpers.py %t/
# RUN: %tilec compile %t/sibling_module.py -k scale --emit=ir -D N=64 -D block=32 | FileCheck %s
# CHECK: with T.Kernel(2, threads=32) as bx:
# CHECK: B[bx * 32 + i] = A[bx * 32 + i] * 1.44269{{[0-9]*}} * 0.5
# RUN: %tilec run %t/sibling_module.py -k scale --device cpu -D N=64 -D block=32 --save-inputs %t/in --save-outputs %t/out
# RUN: python3 %S/../codegen/Inputs/npy_affine.py %t/in/A.npy %t/out/B.npy 0.7213475204444817 0
# RUN: not %tilec compile %t/sibling_module.py -k scale --emit=ir -D N=64 -D block=48 2>&1 | FileCheck %s --check-prefix=ASSERT
# ASSERT: sibling_module.py:30:5: error: trace-time assertion failed: block must be one of (16, 32, 64), got 48 [AssertionFailed]
# RUN: not %tilec compile %t/sibling_module.py -k missing --emit=ir 2>&1 | FileCheck %s --check-prefix=MISSING
# MISSING: sibling_module.py:44:32: error: name `no_such_helper` is not defined; the module `kernel_helpers` does not define it [UnknownName]
import tilelang
import tilelang.language as T

from kernel_helpers import (
    DEVICE,
    LOG2_E,
    check_block,
    scaled,
)


@tilelang.jit(out_idx=[-1])
def scale(N, block=32):
    check_block(block, N)
    factor = LOG2_E

    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(N // block, threads=32) as bx:
            for i in T.serial(block):
                B[bx * block + i] = scaled(A[bx * block + i], factor)

    return main


@tilelang.jit(out_idx=[-1])
def missing(N=64):
    from kernel_helpers import no_such_helper

    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=32) as bx:
            B[bx] = no_such_helper(A[bx])

    return main
