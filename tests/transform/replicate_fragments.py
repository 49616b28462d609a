# layout-inference: small fragments used one element at a time are replicated in every thread,
# as TileLang lays them out: `total` summed in serial code, the mask copied from global memory
# and tested by `if mask[k]` in the key loop, the column scales `cs[j]` read in a 2-D nest over
# the striped tile. Each becomes a whole array per thread; the serial code runs in every thread;
# the 2-D nest stays partitioned and reads `cs` at the column it computes; a loop that only reads
# replicated fragments is spread over the threads like any memory loop (every thread running all
# of `C2[j] += ...` would add it many times).
# RUN: %tilec compile %s --emit lowered --print-after=layout-inference 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck --check-prefix=CUDA %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK-LABEL: IR after layout-inference
# CHECK-DAG: total = T.alloc_local((1,), "float32")
# CHECK-DAG: mask = T.alloc_local((4,), "int8")
# CHECK-DAG: cs = T.alloc_local((16,), "float32")
# CHECK-DAG: x = T.alloc_local((8,), "float32")
# CHECK: total[0] = 0.0
# CHECK: for k in T.serial(4):
# CHECK-NEXT: total[0] = total[0] + S[bx, k]
# CHECK: if mask[k] != T.int8(0):
# CHECK: for tp_r in T.unroll(8):
# CHECK: x[tp_r] = x[tp_r] * cs[j] + total[0]
# CUDA: C2[((bx * 16) + tx)] = (C2[((bx * 16) + tx)] + (cs[tx] * total[0]));
# CPU: output Y: float32[256, 16]
#
# tileplay: kernel=scaled_rows
# tileplay: args M=256
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scaled_rows(M, N=16, block_M=64, blocks=4):
    @T.prim_func
    def main(
        X: T.Tensor((M, N), "float32"),
        S: T.Tensor((T.ceildiv(M, block_M), blocks), "float32"),
        Mask: T.Tensor((T.ceildiv(M, block_M), blocks), "int8"),
        C: T.Tensor((blocks, N), "float32"),
        C2: T.Tensor((T.ceildiv(M, block_M), N), "float32"),
        Y: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, N), "float32")
            total = T.alloc_fragment((1,), "float32")
            mask = T.alloc_fragment((blocks,), "int8")
            cs = T.alloc_fragment((N,), "float32")
            T.copy(X[bx * block_M, 0], x)
            T.copy(Mask[bx, 0], mask)
            total[0] = 0
            for k in T.serial(blocks):
                total[0] += S[bx, k]
            for k in T.serial(blocks):
                if mask[k] != 0:
                    T.copy(C[k, 0], cs)
                    for i, j in T.Parallel(block_M, N):
                        x[i, j] = x[i, j] * cs[j] + total[0]
            T.copy(x, Y[bx * block_M, 0])
            for j in T.Parallel(N):
                C2[bx, j] = C2[bx, j] + cs[j] * total[0]

    return main
