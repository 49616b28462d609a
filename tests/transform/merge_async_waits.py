# RUN: %tilec compile %s --emit lowered --print-after=merge-async-waits --pass-config tp.unstage_shared=false --pass-config tp.drop_redundant_copies=false 2>&1 | FileCheck %s
# Three tile copies into shared memory in a row, outside any pipeline (a layer norm's row,
# gamma and beta; the 1-D vectors are one-row tiles of 16-byte chunks): all three are issued
# before one commit and one wait, not each waited for in turn. A copy into a buffer an earlier
# copy of the run also writes keeps its own wait. (drop-redundant-copies, which would remove the
# repeated copies of G, is off.)
# CHECK-LABEL: IR after merge-async-waits
# CHECK: T.evaluate(T.tp.call("tp::copy_g2s<1, 1024, 128, half_t, false, true>", T.tp.addr_w(X_s[0, 0])
# CHECK-NEXT: T.evaluate(T.tp.call("tp::copy_g2s<1, 1024, 128, half_t, false, true>", T.tp.addr_w(G_s[0])
# CHECK-NEXT: T.evaluate(T.tp.call("tp::copy_g2s<1, 1024, 128, half_t, false, true>", T.tp.addr_w(B_s[0])
# CHECK-NEXT: T.evaluate(T.tp.call("tp::cp_async_commit"))
# CHECK-NEXT: T.evaluate(T.tp.call("tp::cp_async_wait<0>"))
# CHECK: T.evaluate(T.tp.call("tp::copy_g2s<1, 1024, 128, half_t, false, true>", T.tp.addr_w(G_s[0])
# CHECK-NEXT: T.evaluate(T.tp.call("tp::cp_async_commit"))
# CHECK-NEXT: T.evaluate(T.tp.call("tp::cp_async_wait<0>"))
# CHECK-NEXT: T.evaluate(T.tp.call("tp::copy_g2s<1, 1024, 128, half_t, false, true>", T.tp.addr_w(G_s[0])
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scale_shift(M=64, N=1024):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), G: T.Tensor((N,), "float16"), B: T.Tensor((N,), "float16"),
             Y: T.Tensor((M, N), "float16")):
        with T.Kernel(M, threads=128) as bx:
            X_s = T.alloc_shared((1, N), "float16")
            G_s = T.alloc_shared((N,), "float16")
            B_s = T.alloc_shared((N,), "float16")
            T.copy(X[bx, 0], X_s)
            T.copy(G, G_s)
            T.copy(B, B_s)
            for i, j in T.Parallel(1, N):
                Y[bx + i, j] = X_s[i, j] * G_s[j] + B_s[j]
            T.copy(G, G_s)
            T.copy(G, G_s)
            for j in T.Parallel(N):
                Y[bx, j] = Y[bx, j] + G_s[j]

    return main
