# RUN: %tilec compile %s -k two_pass --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=DROP
# RUN: %tilec compile %s -k two_pass -D shared=1 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=DROP
# RUN: %tilec compile %s -k two_pass -D repeat=3 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=DROP
# RUN: %tilec compile %s -k two_pass --pass-config tp.drop_redundant_copies=false --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: %tilec compile %s -k two_pass -D BLOCK_N=128 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=TWO
# RUN: %tilec compile %s -k two_pass -D mode=1 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: %tilec compile %s -k two_pass -D mode=2 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: %tilec compile %s -k two_pass -D mode=3 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=OTHER
# RUN: %tilec compile %s -k two_pass -D mode=4 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: %tilec compile %s -k two_pass -D mode=5 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: %tilec compile %s -k two_pass -D mode=6 --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=KEEP
# RUN: %tilec compile %s -k gemm_between --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=GEMM
# RUN: %tilec compile %s -k loop_source --print-after=drop-redundant-copies 2>&1 | FileCheck %s --check-prefix=LOOPSRC
# RUN: %tilec compile %s -k two_pass --emit cuda --arch sm_90a | FileCheck %s --check-prefix=CUDA
# RUN: %tilec compile %s -k two_pass --pass-config tp.drop_redundant_copies=false --emit cuda --arch sm_90a | FileCheck %s --check-prefix=CUDA-OFF
# That the kernels compute the same with and without the pass is tests/unit/
# test_drop_redundant_copies.cpp (the interpreter runs the Tile IR before and after it).
#
# An online softmax over rows that fit one tile (BLOCK_N = N): both passes over the row run
# once, each copying the same row of X into x, and nothing between writes x or X. The second
# copy goes, whether x is a fragment or a shared tile, and also when the second pass runs in a
# loop of several iterations (repeat=3) that writes neither x nor X.
# DROP-LABEL: IR after drop-redundant-copies
# DROP: T.copy(X[bx, k * 256:k * 256 + 256], x[0, 0:256])
# DROP: T.reduce_sum
# DROP-NOT: T.copy(X
# DROP: T.copy(y[0, 0:256], Y[bx, k * 256:k * 256 + 256])
#
# Kept: switched off; x scaled in place between (mode 1); the kernel stores to X (mode 2); the
# first pass under a branch the second is not under (mode 4); one element of x stored between
# (mode 5); another row copied into half of x between (mode 6).
# KEEP-LABEL: IR after drop-redundant-copies
# KEEP: T.copy(X[bx, k * 256:k * 256 + 256], x[0, 0:256])
# KEEP: T.copy(X[bx, k * 256:k * 256 + 256], x[0, 0:256])
#
# Two tiles a row: each pass copies the row's tiles in turn, so the second pass's first tile is
# not the one x holds.
# TWO-LABEL: IR after drop-redundant-copies
# TWO: T.copy(X[bx, k * 128:k * 128 + 128], x[0, 0:128])
# TWO: T.copy(X[bx, k * 128:k * 128 + 128], x[0, 0:128])
#
# The second pass reads another row (mode 3).
# OTHER-LABEL: IR after drop-redundant-copies
# OTHER: T.copy(X[bx, k * 256:k * 256 + 256], x[0, 0:256])
# OTHER: T.copy(X[row, k * 256:k * 256 + 256], x[0, 0:256])
#
# A gemm accumulates into the tile between two copies of C0 into it: both stay.
# GEMM-LABEL: IR after drop-redundant-copies
# GEMM: T.copy(C0[0:64, 0:64], acc[0:64, 0:64])
# GEMM: T.gemm(A_s, B_s, acc)
# GEMM: T.copy(C0[0:64, 0:64], acc[0:64, 0:64])
#
# A loop copies S into x, then changes S: its copy rewrites what x held before the loop only in
# the first iteration, so it stays, and the copy of x into y after the loop stays too.
# LOOPSRC-LABEL: IR after drop-redundant-copies
# LOOPSRC: T.copy(x[0:128], y[0:128])
# LOOPSRC: for r in T.serial(3):
# LOOPSRC-NEXT: T.copy(S[0:128], x[0:128])
# LOOPSRC: T.copy(x[0:128], y[0:128])
#
# The generated CUDA loads X once, twice without the pass.
# CUDA: &X[
# CUDA-NOT: &X[
# CUDA-OFF: &X[
# CUDA-OFF: &X[
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def two_pass(M=8, N=256, BLOCK_N=256, mode=0, shared=0, repeat=1):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(M, threads=128) as bx:
            if shared == 1:
                x = T.alloc_shared((1, BLOCK_N), "float16")
            else:
                x = T.alloc_fragment((1, BLOCK_N), "float16")
            y = T.alloc_fragment((1, BLOCK_N), "float16")
            e = T.alloc_fragment((1, BLOCK_N), "float32")
            m = T.alloc_fragment((1,), "float32")
            s = T.alloc_fragment((1,), "float32")
            t = T.alloc_fragment((1,), "float32")
            T.fill(s, 0)
            T.fill(m, -T.infinity("float32"))
            for k in T.Pipelined(T.ceildiv(N, BLOCK_N)):
                if mode == 4:
                    if bx < M // 2:
                        T.copy(X[bx, k * BLOCK_N], x)
                else:
                    T.copy(X[bx, k * BLOCK_N], x)
                for i, j in T.Parallel(1, BLOCK_N):
                    e[i, j] = T.Cast("float32", x[i, j])
                T.reduce_max(e, m, dim=1, clear=False)
                for i, j in T.Parallel(1, BLOCK_N):
                    e[i, j] = T.exp(e[i, j] - m[i])
                T.reduce_sum(e, s, dim=1, clear=False)
                if mode == 1:
                    for i, j in T.Parallel(1, BLOCK_N):
                        x[i, j] = x[i, j] * T.Cast("float16", 0.5)
                if mode == 2:
                    X[bx, k] = T.Cast("float16", s[0])
                if mode == 5:
                    for i, j in T.Parallel(1, BLOCK_N):
                        if j == 0:
                            x[i, j] = T.Cast("float16", m[i])
                if mode == 6:
                    T.copy(X[M - 1 - bx, 0:BLOCK_N // 2], x[0, BLOCK_N // 2:BLOCK_N])
            row = M - 1 - bx if mode == 3 else bx
            for r in T.serial(repeat):
                for k in T.Pipelined(T.ceildiv(N, BLOCK_N)):
                    T.copy(X[row, k * BLOCK_N], x)
                    for i, j in T.Parallel(1, BLOCK_N):
                        y[i, j] = T.Cast("float16", T.exp(T.Cast("float32", x[i, j]) - m[i]) / s[i] * (r + 1))
                    T.copy(y, Y[bx, k * BLOCK_N])

    return main


@tilelang.jit(out_idx=[-1])
def gemm_between(M=64, N=64, K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C0: T.Tensor((M, N), "float32"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, K), "float16")
            B_s = T.alloc_shared((K, N), "float16")
            acc = T.alloc_fragment((M, N), "float32")
            T.copy(A, A_s)
            T.copy(B, B_s)
            T.copy(C0, acc)
            T.gemm(A_s, B_s, acc)
            T.copy(C0, acc)
            T.gemm(A_s, B_s, acc)
            T.copy(acc, C)

    return main


@tilelang.jit(out_idx=[-1])
def loop_source(N=128, repeat=3):
    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=128) as bx:
            S = T.alloc_shared((N,), "float32")
            x = T.alloc_fragment((N,), "float32")
            y = T.alloc_fragment((N,), "float32")
            T.copy(X, S)
            T.copy(S, x)
            T.copy(x, y)
            for r in T.serial(repeat):
                T.copy(S, x)
                for i in T.Parallel(N):
                    S[i] = x[i] * 2
            T.copy(x, y)
            T.copy(y, Y)

    return main
