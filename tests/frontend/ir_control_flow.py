# RUN: %tilec compile %s --emit=ir -D N=1024 | FileCheck %s
# CHECK: # attr out_idx = 1
# CHECK-NEXT: @T.prim_func
# CHECK-NEXT: def scale_rows(A: T.Tensor((1024,), "float32"), B: T.Tensor((1024,), "float32")):
# CHECK-NEXT: with T.Kernel(8, threads=128) as bx:
# CHECK-NEXT: count = T.alloc_var("int32", init=0)
# CHECK-NEXT: for i in T.Parallel(128):
# CHECK-NEXT: g = bx * 128 + i
# CHECK-NEXT: if g < 1024:
# CHECK-NEXT: B[g] = T.max(A[g] * 2.0, 0.0)
# CHECK-NEXT: else:
# CHECK-NEXT: count[0] = count[0] + 1
# CHECK-NEXT: for u in T.serial(2):
# CHECK-NEXT: B[bx * 128 + u] = B[bx * 128 + u] + T.Cast("float32", u)
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale_rows(N, block=128, unroll=2, use_max=True):
    factors = [1.0 * (k + 1) for k in range(unroll)]

    @T.macro
    def clamp_store(dst, idx, v):
        dst[idx] = T.max(v, 0.0) if use_max else v

    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            count = T.alloc_var("int32", init=0)
            for i in T.Parallel(block):
                g = bx * block + i
                if g < N:
                    clamp_store(B, g, A[g] * factors[-1])
                else:
                    count = count + 1
            for u in range(unroll):
                B[bx * block + u] = B[bx * block + u] + u

    return main
