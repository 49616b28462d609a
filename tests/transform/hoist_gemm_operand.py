# RUN: %tilec compile %s --arch sm_90a --print-after=hoist-gemm-operand --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_90a -D rows=128 -D block=128 --remarks --emit lowered 2>&1 | FileCheck %s --check-prefix=BIG
# RUN: %tilec compile %s --arch sm_90a -D rewrite=True --print-after=hoist-gemm-operand --emit lowered 2>&1 | FileCheck %s --check-prefix=WRITTEN
# RUN: %tilec compile %s --arch sm_80 --print-after=hoist-gemm-operand --emit lowered 2>&1 | FileCheck %s --check-prefix=SM80
# RUN: %tilec compile %s --arch sm_90a -D M=576 -D rows=192 -D threads=384 -D D=64 -D block=128 --remarks --emit lowered 2>&1 | FileCheck %s --check-prefix=THREE
# hoist_gemm_operand: X_s, which the loop only reads, is copied once into a fragment before the
# loop and the gemm reads that (an RS wgmma). Not when the fragments would need too many
# registers (a remark at the gemm says so), when the loop writes the tile, or without wgmma.
# CHECK: IR after hoist-gemm-operand
# CHECK: X_s_regs = T.alloc_fragment((64, 128), "float16")
# CHECK: T.copy(X[bx * 64:bx * 64 + 64, 0:128], X_s[0:64, 0:128])
# CHECK: T.copy(X_s[0:64, 0:128], X_s_regs[0:64, 0:128])
# CHECK-NEXT: for k in T.Pipelined
# CHECK: T.gemm(X_s_regs, W_s, s, transpose_B=True
# BIG: hoist_gemm_operand.py:[[@LINE+31]]:17: remark: `X_s` in registers (an RS wgmma) not used: it needs 64 registers a thread beside the fragments' {{[0-9]+}}; each issue reads it from shared memory [FastPathNotTaken]
# BIG-NOT: X_s_regs
# WRITTEN-NOT: X_s_regs
# SM80-NOT: X_s_regs
# Three consumer warpgroups get 160 registers a thread, so the fragments (128 here) leave no
# room for X_s's 16 beside the addresses: it stays in shared memory.
# THREE: remark: `X_s` in registers (an RS wgmma) not used: it needs 16 registers a thread beside the fragments' 128
# THREE-NOT: X_s_regs
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def chained(M=512, K=512, D=128, rows=64, block=64, rewrite=False, threads=128):
    @T.prim_func
    def main(X: T.Tensor((M, D), "float16"), W: T.Tensor((K, D), "float16"), Y: T.Tensor((K, D), "float16"),
             O: T.Tensor((M, D), "float32")):
        with T.Kernel(T.ceildiv(M, rows), threads=threads) as bx:
            X_s = T.alloc_shared((rows, D), "float16")
            W_s = T.alloc_shared((block, D), "float16")
            Y_s = T.alloc_shared((block, D), "float16")
            s = T.alloc_fragment((rows, block), "float32")
            p = T.alloc_fragment((rows, block), "float16")
            acc = T.alloc_fragment((rows, D), "float32")
            T.copy(X[bx * rows, 0], X_s)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block), num_stages=2):
                T.copy(W[k * block, 0], W_s)
                T.copy(Y[k * block, 0], Y_s)
                if rewrite:
                    T.copy(W[k * block, 0], X_s)
                T.gemm(X_s, W_s, s, transpose_B=True, clear_accum=True, policy=T.GemmWarpPolicy.FullRow)
                T.copy(s, p)
                T.gemm(p, Y_s, acc, policy=T.GemmWarpPolicy.FullRow)
            T.copy(acc, O[bx * rows, 0])
    return main
