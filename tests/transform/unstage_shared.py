# RUN: %tilec compile %s -k norm_rows --print-after=unstage-shared 2>&1 | FileCheck %s --check-prefix=NORM
# RUN: %tilec compile %s -k norm_rows -D M=100 -D blk_m=8 --print-after=unstage-shared 2>&1 | FileCheck %s --check-prefix=EDGE
# RUN: %tilec compile %s -k norm_rows -D blk_m=4 --print-after=unstage-shared 2>&1 | FileCheck %s --check-prefix=REUSE
# RUN: %tilec compile %s -k norm_rows --pass-config tp.unstage_shared=false --print-after=unstage-shared 2>&1 | FileCheck %s --check-prefix=OFF
# RUN: %tilec compile %s -k norm_rows -D N=256 --print-after=unstage-shared 2>&1 | FileCheck %s --check-prefix=SMALL
# RUN: %tilec compile %s -k norm_rows -D N=256 --pass-config tp.unstage_shared=true --print-after=unstage-shared 2>&1 | FileCheck %s --check-prefix=FORCED
# RUN: %tilec compile %s -k read_back --pass-config tp.unstage_shared=true --print-after=unstage-shared 2>&1 | FileCheck %s --check-prefix=READBACK
# RUN: %tilec compile %s -k gemm_staged --pass-config tp.unstage_shared=true --print-after=unstage-shared 2>&1 | FileCheck %s --check-prefix=GEMM
# That the rewritten kernels compute what the staged ones do is tests/unit/test_unstage_shared.cpp
# (the interpreter runs the Tile IR before and after the pass).
#
# One row per block (blk_m=1, 24 KB of staging: 6 blocks an sm_80 SM where 128 threads allow 16):
# X's row, gamma and beta are each read once, so the loads go to
# global memory and the staged result is stored straight to Y; no shared buffer is left.
# NORM-LABEL: IR after unstage-shared
# NORM-NOT: alloc_shared
# NORM: X_f[i, j] = T.Cast("float32", X[bx, j])
# NORM: Y[bx, j] = T.Cast("float16", (X_f[i, j] - m[i]) * T.Cast("float32", G[j]) + T.Cast("float32", B[j]))
# NORM-NOT: T.copy
#
# 100 rows in blocks of 8: the last block's rows past 99 read 0 and are not stored, as the copies
# give; gamma is read 8 times per element, so it stays staged.
# EDGE-LABEL: IR after unstage-shared
# EDGE: G_s = T.alloc_shared((4096,), "float16")
# EDGE: T.copy(G[0:4096], G_s[0:4096])
# EDGE: T.if_then_else(bx * 8 + i < 100, X[bx * 8 + i, j], T.float16(0.0))
# EDGE: if bx * 8 + i < 100:
# EDGE-NEXT: Y[bx * 8 + i, j] =
#
# With rows of 256 the staging (1.5 KB) does not limit the blocks an SM holds: it stays, unless
# tp.unstage_shared=true asks for the pass everywhere.
# SMALL-LABEL: IR after unstage-shared
# SMALL: T.copy(X[bx, 0:256], X_s[0, 0:256])
# FORCED-LABEL: IR after unstage-shared
# FORCED-NOT: alloc_shared
#
# REUSE-LABEL: IR after unstage-shared
# REUSE: T.copy(G[0:4096], G_s[0:4096])
# REUSE: T.copy(B[0:4096], B_s[0:4096])
#
# OFF-LABEL: IR after unstage-shared
# OFF: T.copy(X[bx, 0:4096], X_s[0, 0:4096])
# OFF: T.copy(X_s[0, 0:4096], Y[bx, 0:4096])
#
# The kernel reads Y back after the staged store: the store must stay behind the copy.
# READBACK-LABEL: IR after unstage-shared
# READBACK: T.copy(O_s[0:128], O[bx * 128:bx * 128 + 128])
#
# A GEMM's shared operands and the tile staged for its store keep their shared memory.
# GEMM-LABEL: IR after unstage-shared
# GEMM: T.copy(A[by * 64:by * 64 + 64, k * 32:k * 32 + 32], A_s[0:64, 0:32])
# GEMM: T.copy(C_s[0:64, 0:64], C[by * 64:by * 64 + 64, bx * 64:bx * 64 + 64])
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def norm_rows(M=64, N=4096, blk_m=1):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), G: T.Tensor((N,), "float16"), B: T.Tensor((N,), "float16"),
             Y: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(M, blk_m), threads=128) as bx:
            X_s = T.alloc_shared((blk_m, N), "float16")
            G_s = T.alloc_shared((N,), "float16")
            B_s = T.alloc_shared((N,), "float16")
            X_f = T.alloc_fragment((blk_m, N), "float32")
            m = T.alloc_fragment((blk_m,), "float32")
            T.copy(X[bx * blk_m, 0], X_s)
            T.copy(G, G_s)
            T.copy(B, B_s)
            for i, j in T.Parallel(blk_m, N):
                X_f[i, j] = T.Cast("float32", X_s[i, j])
            T.reduce_max(X_f, m, dim=1)
            for i, j in T.Parallel(blk_m, N):
                X_s[i, j] = T.Cast("float16", (X_f[i, j] - m[i]) * T.Cast("float32", G_s[j]) + T.Cast("float32", B_s[j]))
            T.copy(X_s, Y[bx * blk_m, 0])

    return main


@tilelang.jit(out_idx=[-1])
def read_back(N=1024):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), O: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, 128), threads=128) as bx:
            O_s = T.alloc_shared((128,), "float32")
            for i in T.Parallel(128):
                O_s[i] = A[bx * 128 + i] * 2.0
            T.copy(O_s, O[bx * 128])
            for i in T.Parallel(128):
                O[bx * 128 + i] = O[bx * 128 + i] + 1.0

    return main


@tilelang.jit(out_idx=[-1])
def gemm_staged(M=128, N=128, K=128):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), Bm: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, 64), T.ceildiv(M, 64), threads=128) as (bx, by):
            A_s = T.alloc_shared((64, 32), "float16")
            B_s = T.alloc_shared((32, 64), "float16")
            C_s = T.alloc_shared((64, 64), "float16")
            C_f = T.alloc_fragment((64, 64), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, 32), num_stages=2):
                T.copy(A[by * 64, k * 32], A_s)
                T.copy(Bm[k * 32, bx * 64], B_s)
                T.gemm(A_s, B_s, C_f)
            for i, j in T.Parallel(64, 64):
                C_s[i, j] = C_f[i, j]
            T.copy(C_s, C[by * 64, bx * 64])

    return main
