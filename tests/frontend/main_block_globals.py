# A factory that reads a module global bound only in the `__main__` block (TileLang's NSA backward
# reads the script's `H` so): run as a script, that block binds it before calling the factory, so
# it resolves to that binding (BLOCK), beside the module's own globals (SCALE); a name bound
# nowhere stays an error.
# RUN: %tilec compile %s -k scaled --emit=ir -D N=64 | FileCheck %s
# CHECK: with T.Kernel(4, threads=32) as bx:
# CHECK-NEXT: for i in T.serial(16):
# CHECK-NEXT: B[bx * 16 + i] = A[bx * 16 + i] * 3.0
# RUN: not %tilec compile %s -k unbound --emit=ir -D N=64 2>&1 | FileCheck %s --check-prefix=UNBOUND
# UNBOUND: error: name `NOWHERE` is not defined
import tilelang
import tilelang.language as T

SCALE = 3.0


@tilelang.jit(out_idx=[-1])
def scaled(N):
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(N // BLOCK, threads=32) as bx:
            for i in T.serial(BLOCK):
                B[bx * BLOCK + i] = A[bx * BLOCK + i] * SCALE

    return main


@tilelang.jit(out_idx=[-1])
def unbound(N):
    @T.prim_func
    def main(A: T.Tensor((N,), T.float32), B: T.Tensor((N,), T.float32)):
        with T.Kernel(N // NOWHERE, threads=32) as bx:
            B[bx] = A[bx]

    return main


if __name__ == "__main__":
    BLOCK = 16
    kernel = scaled(64)
