# RUN: not %tilec compile %s --emit=ir 2>&1 | FileCheck %s
# CHECK: fail_unknown_tile_function.py:12:9: error: `T.copyy` is not a TileLang function; did you mean `T.copy` [UnknownTileFunction]
import tilelang
import tilelang.language as T


@tilelang.jit
def k(A):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(1, threads=128) as bx:
        s = T.alloc_shared((128,), T.float32)
        T.copyy(A, s)
