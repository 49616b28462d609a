# A module beside the kernel file that does not parse: an error at the import, saying where the
# module's syntax error is. An assertion failing inside an imported helper: an error at the
# call, with a note at the import (the helper's own lines are not lines of this file).
# RUN: rm -rf %t && mkdir -p %t && cp %s %S/Inputs/sibling/broken_helpers.py %S/Inputs/sibling/checked_helpers.py %t/
# RUN: not %tilec compile %t/fail_import_failed.py -k broken --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_import_failed.py:17:5: error: cannot load `broken_helpers` from `{{.*}}broken_helpers.py`: 3:14: expected `:`, found newline [ImportFailed]
# RUN: not %tilec compile %t/fail_import_failed.py -k checked --emit=ir -D block=48 2>&1 | FileCheck %s --check-prefix=ASSERT
# ASSERT: fail_import_failed.py:29:5: error: trace-time assertion failed: block must be one of (16, 32, 64), got 48 [AssertionFailed]
# ASSERT: fail_import_failed.py:12:1: note: `check_block` is defined in `checked_helpers.py`, imported here; errors inside it are reported at the call [ImportedCodeHere]
import tilelang
import tilelang.language as T
from checked_helpers import check_block


@tilelang.jit(out_idx=[-1])
def broken(N=64):
    import broken_helpers

    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(1, threads=32) as bx:
            B[bx] = broken_helpers.broken(A[bx])

    return main


@tilelang.jit(out_idx=[-1])
def checked(N=64, block=32):
    check_block(block)

    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(N // block, threads=32) as bx:
            B[bx] = A[bx]

    return main
