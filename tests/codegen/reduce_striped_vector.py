# T.reduce_sum of a 1-D striped fragment into a one-element fragment: the vector is one row of
# its elements (the striped order is the same), so it reduces through tp::reduce_striped as a
# 1 x N tile, and the result is replicated in every thread for the serial code that reads it.
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: tp::reduce_striped<1, 256, 128, 1, tp::ReduceOp::Sum, false>
# CPU: output Y: float32[4]
#
# tileplay: kernel=vector_sums
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def vector_sums(B=4, N=256):
    @T.prim_func
    def main(X: T.Tensor((B, N), "float32"), Y: T.Tensor((B,), "float32")):
        with T.Kernel(B, threads=128) as bx:
            v = T.alloc_fragment((N,), "float32")
            s = T.alloc_fragment((1,), "float32")
            for i in T.Parallel(N):
                v[i] = X[bx, i] * X[bx, i]
            T.clear(s)
            T.reduce_sum(v, s, dim=-1, clear=False)
            Y[bx] = s[0]

    return main
