# T.im2col: the column tile of a 2-D convolution from an NHWC image (zero padding outside it),
# staged as a T.Parallel element loop, as TileLang lowers it without a TMA im2col descriptor;
# `T.Tensor(shape, dtype, buf.data)` inside a kernel is a view of buf with another shape (the
# convolution examples multiply by the filter as a (KH*KW*C, F) matrix and write the output as
# an (N*OH*OW, F) one); `T.copy(view[i, j], tile)` copies the view's region from (i, j), not the
# viewed buffer's from the element (i, j) lands on. OUT (im2col, then a float32 T.gemm) and REF (the same sums written out
# by hand, in the same order) must agree exactly, with padding 1 and at stride 1 and 2.
# RUN: %tilec compile %s --emit ir | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: %tilec run %s --device cpu -D S=2 | FileCheck --check-prefix=CPU2 %s
# RUN: %tilec compile %s --arch sm_80 --emit ptx -o %t.ptx
# RUN: %tilec compile %s --arch sm_90a --emit ptx -o %t.ptx
# RUN: not %tilec compile %s --emit ir -D bad_rank=True 2>&1 | FileCheck --check-prefix=RANK %s
# CHECK: for tp_i, tp_j in T.Parallel(32, 8)
# CHECK-NEXT: data_shared[tp_i, tp_j] = T.if_then_else({{.*}} >= 0 and {{.*}} < 8), data[(by * 32 + tp_i) // 64, {{.*}}, (k_iter * 8 + tp_j) % 8], 0.0)
# CHECK: kernel_shared[tp_v0, tp_v1] = T.if_then_else({{.*}}, kernel[(k_iter * 8 + tp_v0) // 8 // 3, (k_iter * 8 + tp_v0) // 8 % 3, (k_iter * 8 + tp_v0) % 8, bx * 16 + tp_v1], 0.0)
# CHECK: out[(by * 32 + tp_v0) // 8 // 8, (by * 32 + tp_v0) // 8 % 8, (by * 32 + tp_v0) % 8, bx * 16 + tp_v1] = {{.*}}out_local[tp_v0, tp_v1]
# CPU: output out: float32[2, 8, 8, 16] [[STATS:.*]]
# CPU: output ref: float32[128, 16] [[STATS]]
# CPU2: output out: float32[2, 4, 4, 16] [[STATS2:.*]]
# CPU2: output ref: float32[32, 16] [[STATS2]]
# RANK: im2col.py:[[@LINE+30]]:{{[0-9]+}}: error: shape mismatch: `T.im2col` reads an NHWC image of rank 4, and `kernel_flat` has rank 2 [ShapeMismatch]
#
# tileplay: kernel=conv
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def conv(N=2, C=8, H=8, W=8, F=16, K=3, S=1, D=1, P=1, block_M=32, block_N=16, block_K=8, bad_rank=False):
    OH = (H + 2 * P - D * (K - 1) - 1) // S + 1
    OW = (W + 2 * P - D * (K - 1) - 1) // S + 1
    M = N * OH * OW

    @T.prim_func
    def main(
        data: T.Tensor((N, H, W, C), "float32"),
        kernel: T.Tensor((K, K, C, F), "float32"),
        out: T.Tensor((N, OH, OW, F), "float32"),
        ref: T.Tensor((M, F), "float32"),
    ):
        with T.Kernel(T.ceildiv(F, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            data_shared = T.alloc_shared((block_M, block_K), "float32")
            kernel_shared = T.alloc_shared((block_K, block_N), "float32")
            out_local = T.alloc_fragment((block_M, block_N), "float32")
            ref_local = T.alloc_fragment((block_M, block_N), "float32")
            kernel_flat = T.Tensor((K * K * C, F), "float32", kernel.data)
            out_flat = T.Tensor((M, F), "float32", out.data)
            T.clear(out_local)
            for k_iter in T.Pipelined(T.ceildiv(K * K * C, block_K), num_stages=1):
                if bad_rank:
                    T.im2col(kernel_flat, data_shared, by, k_iter, K, S, D, P)
                T.im2col(data, data_shared, by, k_iter, K, S, D, P)
                T.copy(kernel_flat[k_iter * block_K, bx * block_N], kernel_shared)
                T.gemm(data_shared, kernel_shared, out_local)
            T.copy(out_local, out_flat[by * block_M, bx * block_N])
            # The same sums by hand: k = (kh * K + kw) * C + c, in order.
            T.clear(ref_local)
            for k in T.serial(K * K * C):
                for i, j in T.Parallel(block_M, block_N):
                    m = by * block_M + i
                    ih = (m % (OH * OW)) // OW * S + k // (K * C) * D - P
                    iw = m % OW * S + k // C % K * D - P
                    inside = (ih >= 0) & (iw >= 0) & (ih < H) & (iw < W)
                    x = T.if_then_else(inside, data[m // (OH * OW), ih, iw, k % C], T.float32(0))
                    ref_local[i, j] = ref_local[i, j] + x * kernel[k // (K * C), k // C % K, k % C, bx * block_N + j]
            T.copy(ref_local, ref[by * block_M, bx * block_N])

    return main
