# T.reshape / T.view: another shape over a buffer's elements. Accesses through the view become
# accesses of the buffer it views at trace time (the view never reaches the IR), and T.copy,
# T.clear and T.reduce_* on a view are staged as element loops. L1 (through the view) and L2
# (written out by hand on the fragment) must agree; F is B seen as one row.
# RUN: %tilec compile %s --emit ir | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: %tilec compile %s --arch sm_80 --emit ptx -o %t.ptx
# RUN: %tilec compile %s --arch sm_90a --emit ptx -o %t.ptx
# RUN: not %tilec compile %s --emit ir -D bad_count=True 2>&1 | FileCheck --check-prefix=COUNT %s
# RUN: not %tilec compile %s --emit ir -D other_dtype=True 2>&1 | FileCheck --check-prefix=DTYPE %s
# RUN: not %tilec compile %s --emit ir -D gemm_view=True 2>&1 | FileCheck --check-prefix=GEMM %s
# CHECK-NOT: s3
# CHECK: s[n, q * 16 + h] = T.max(s[n, q * 16 + h], 0.0)
# CHECK: l1[tp_v0, tp_v1] = l1[tp_v0, tp_v1] + s[tp_v0, tp_v1 * 16 + tp_r]
# CHECK: F[tp_v0] = T.if_then_else(tp_v0 < 2048, B[tp_v0 // 32, tp_v0 % 32], T.float16(0.0))
# CHECK-NOT: s3
# CPU: output F: float16[2048]
# CPU: output L1: float32[64, 4] [[STATS:.*]]
# CPU: output L2: float32[64, 4] [[STATS]]
# COUNT: reshape_view.py:[[@LINE+19]]:{{[0-9]+}}: error: shape mismatch: `T.reshape` of `s` (4096 elements) to a shape of 4352 elements [ShapeMismatch]
# DTYPE: reshape_view.py:[[@LINE+20]]:{{[0-9]+}}: error: {{.*}}a view with another dtype (float16 over float32 `s`){{.*}} [UnsupportedConstruct]
# GEMM: reshape_view.py:[[@LINE+40]]:{{[0-9]+}}: error: {{.*}}`T.gemm` on `b3`, a view made by T.reshape / T.view{{.*}} [UnsupportedConstruct]
#
# tileplay: kernel=views
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-3, -2, -1])
def views(N=64, Q=4, H=16, D=32, bad_count=False, other_dtype=False, gemm_view=False):
    @T.prim_func
    def main(A: T.Tensor((N, D), "float16"), B: T.Tensor((Q * H, D), "float16"), L1: T.Tensor((N, Q), "float32"),
             L2: T.Tensor((N, Q), "float32"), F: T.Tensor((Q * H * D,), "float16")):
        with T.Kernel(1, threads=128) as bx:
            a = T.alloc_shared((N, D), "float16")
            b = T.alloc_shared((Q * H, D), "float16")
            s = T.alloc_fragment((N, Q * H), "float32")
            if bad_count:
                s3 = T.reshape(s, (N, Q, H + 1))
            elif other_dtype:
                s3 = T.view(s, shape=(N, Q, H), dtype="float16")
            else:
                s3 = T.reshape(s, (N, Q, H))
            l1 = T.alloc_fragment((N, Q), "float32")
            l2 = T.alloc_fragment((N, Q), "float32")
            T.copy(A, a)
            T.copy(B, b)
            T.gemm(a, b, s, transpose_B=True, clear_accum=True)
            for n, q, h in T.Parallel(N, Q, H):
                s3[n, q, h] = T.max(s3[n, q, h], 0) * (h + 1)
            T.reduce_sum(s3, l1, dim=-1)
            for n, q in T.Parallel(N, Q):
                l2[n, q] = 0
                for h in T.serial(H):
                    l2[n, q] += s[n, q * H + h]
            T.copy(l1, L1)
            T.copy(l2, L2)
            flat = T.reshape(B, (Q * H * D,))
            T.copy(flat[0:Q * H * D], F)
            if gemm_view:
                b3 = T.view(b, shape=(Q * H, D))
                T.gemm(a, b3, s, transpose_B=True)

    return main
