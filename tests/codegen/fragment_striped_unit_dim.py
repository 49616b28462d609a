# A T.Parallel(1, D) loop over a (1, D) striped fragment that also updates a (D,) striped
# fragment indexed by the inner variable only (TileLang's layernorm backward accumulates
# dgamma[j] this way): the leading loop variable has extent 1, so both fragments walk their
# elements in the same order and share the per-thread stripe index (the unit loop is dropped,
# its variable 0: `X_s[i * 1024 + j]` reads `X_s[tp_e]`).
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_80 | FileCheck %s
# CHECK: float x_hat[8];
# CHECK: float acc[8];
# CHECK: for (int tp_r = 0; tp_r < 8; ++tp_r) {
# CHECK-NEXT: const int tp_e = ((tp_r * 128) + tx);
# CHECK: x_hat[tp_r] = (static_cast<float>(X_s[tp_e]) * 2.0f);
# CHECK-NEXT: acc[tp_r] = (acc[tp_r] + x_hat[tp_r]);
# CHECK: tp::atomic_add(&Acc[tp_e_1], acc[tp_r_1]);
import tilelang
import tilelang.language as T


@tilelang.jit
def col_accumulate(N=64, D=1024, rows=8):
    @T.prim_func
    def main(X: T.Tensor((N, D), "float16"), Acc: T.Tensor((D,), "float32")):
        with T.Kernel(T.ceildiv(N, rows), threads=128) as bx:
            X_s = T.alloc_shared((1, D), "float16")
            x_hat = T.alloc_fragment((1, D), "float32")
            acc = T.alloc_fragment((D,), "float32")
            T.clear(acc)
            for k in T.serial(rows):
                T.copy(X[bx * rows + k, 0], X_s)
                for i, j in T.Parallel(1, D):
                    x_hat[i, j] = T.Cast("float32", X_s[i, j]) * 2.0
                    acc[j] += x_hat[i, j]
            for j in T.Parallel(D):
                T.atomic_add(Acc[j], acc[j])

    return main
