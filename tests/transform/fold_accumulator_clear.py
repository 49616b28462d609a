# RUN: %tilec compile %s -k masked --print-after=fold-accumulator-clear --emit lowered 2>&1 | FileCheck %s --check-prefix=MASKED
# RUN: %tilec compile %s -k masked -D seq=4000 --print-after=fold-accumulator-clear --emit lowered 2>&1 | FileCheck %s --check-prefix=TAIL
# RUN: %tilec compile %s -k read_first --print-after=fold-accumulator-clear --emit lowered 2>&1 | FileCheck %s --check-prefix=READ
# A tail mask no iteration can meet (k * 64 + j < 4096 for every k < 64, j < 64) folds to a
# zero fill in simplify (bounds of the loop variables), and a zeroed fragment whose next use
# is a T.gemm's accumulator becomes that gemm's clear_accum. With seq = 4000 the last tile is
# masked: the mask moves behind the gemm, which now clears (adding 0 or -inf after the
# products gives what accumulating onto them gives), and guard-masks runs it only on tiles
# where k * 64 + 63 >= 4000. A fragment read between its clear and the gemm keeps its clear.
# MASKED: IR after fold-accumulator-clear
# MASKED-NOT: T.if_then_else
# MASKED-NOT: acc_s[i, j] = 0.0
# MASKED: T.gemm(Q_s, K_s, acc_s, transpose_B=True, clear_accum=True)
# TAIL: IR after fold-accumulator-clear
# TAIL-NOT: acc_s[i, j] = T.if_then_else(k * 64 + j < 4000, 0.0
# TAIL: T.gemm(Q_s, K_s, acc_s, transpose_B=True, clear_accum=True)
# TAIL-NEXT: for i, j in T.Parallel(64, 64):
# TAIL-NEXT: acc_s[i, j] = T.if_then_else(k * 64 + j < 4000, acc_s[i, j], acc_s[i, j] + -T.infinity("float32"))
# RUN: %tilec compile %s -k masked -D seq=4000 --print-after=guard-masks --emit lowered 2>&1 | FileCheck %s --check-prefix=GUARD
# GUARD: IR after guard-masks
# GUARD: T.gemm(Q_s, K_s, acc_s, transpose_B=True, clear_accum=True)
# GUARD-NEXT: if not k * 64 - 4000 + 63 < 0:
# GUARD-NEXT: for i, j in T.Parallel(64, 64):
# READ: IR after fold-accumulator-clear
# READ: T.fill(s, 0.0)
# READ: T.copy(s[0:64, 0:64], keep[0:64, 0:64])
# READ: T.gemm(A_s, B_s, s)
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def masked(seq=4096, dim=64):
    @T.prim_func
    def main(Q: T.Tensor((seq, dim), "float16"), K: T.Tensor((seq, dim), "float16"), S: T.Tensor((seq, 64), "float32")):
        with T.Kernel(T.ceildiv(seq, 64), threads=128) as bx:
            Q_s = T.alloc_shared((64, dim), "float16")
            K_s = T.alloc_shared((64, dim), "float16")
            acc_s = T.alloc_fragment((64, 64), "float32")
            total = T.alloc_fragment((64, 64), "float32")
            T.copy(Q[bx * 64, 0], Q_s)
            T.clear(total)
            for k in T.Pipelined(T.ceildiv(seq, 64), num_stages=2):
                T.copy(K[k * 64, 0], K_s)
                for i, j in T.Parallel(64, 64):
                    acc_s[i, j] = T.if_then_else(k * 64 + j < seq, 0, -T.infinity("float32"))
                T.gemm(Q_s, K_s, acc_s, transpose_B=True)
                for i, j in T.Parallel(64, 64):
                    total[i, j] += acc_s[i, j]
            T.copy(total, S[bx * 64, 0])
    return main


@tilelang.jit(out_idx=[-1])
def read_first(N=64):
    @T.prim_func
    def main(A: T.Tensor((N, N), "float16"), B: T.Tensor((N, N), "float16"), C: T.Tensor((N, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((N, N), "float16")
            B_s = T.alloc_shared((N, N), "float16")
            s = T.alloc_fragment((N, N), "float32")
            keep = T.alloc_fragment((N, N), "float32")
            T.copy(A[0, 0], A_s)
            T.copy(B[0, 0], B_s)
            T.fill(s, 0)
            T.copy(s, keep)
            T.gemm(A_s, B_s, s)
            for i, j in T.Parallel(N, N):
                s[i, j] += keep[i, j]
            T.copy(s, C[0, 0])
    return main
