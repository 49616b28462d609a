# stage-fragments: loops that reach fragment elements other threads hold go through shared
# copies. The transpose writes `t` at [j, i] under a loop driven by the striped `x`: it writes
# the whole of `t_stage` (no copy in) and `t` is loaded back after; the row scales `v` (written
# by their own partitioned loop, too large to replicate) are read at [i] under the same driver:
# copied into `v_stage` before the loop. Barriers separate the writers from the readers.
# RUN: %tilec compile %s --emit lowered --print-after=stage-fragments 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit lowered --remarks 2>&1 | FileCheck --check-prefix=REMARK %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck --check-prefix=CUDA %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# REMARK: remark: register access of `t` not used: the loop reaches elements that other threads hold; they go through a shared-memory copy [FastPathNotTaken]
# REMARK: remark: register access of `v` not used
# CHECK-LABEL: IR after stage-fragments
# CHECK: t_stage = T.alloc_shared((32, 128), "float32")
# CHECK: v_stage = T.alloc_shared((128,), "float32")
# CHECK: for i, j in T.Parallel(128, 32):
# CHECK-NEXT: t_stage[j, i] = x[i, j]
# CHECK-NEXT: T.copy(t_stage[0:32, 0:128], t[0:32, 0:128])
# CHECK: T.copy(v[0:128], v_stage[0:128])
# CHECK-NEXT: for i, j in T.Parallel(128, 32):
# CHECK-NEXT: x[i, j] = x[i, j] * v_stage[i]
# CUDA: __shared__
# CUDA: t_stage[
# CUDA: __syncthreads();
# CUDA: = t_stage[
# CPU: output Y: float32[256, 32]
#
# tileplay: kernel=transpose_scale
# tileplay: args M=256
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-2, -1])
def transpose_scale(M, N=32, block_M=128):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), V: T.Tensor((M,), "float32"), Xt: T.Tensor((N, M), "float32"), Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x = T.alloc_fragment((block_M, N), "float32")
            t = T.alloc_fragment((N, block_M), "float32")
            v = T.alloc_fragment((block_M,), "float32")
            T.copy(X[bx * block_M, 0], x)
            for i, j in T.Parallel(block_M, N):
                t[j, i] = x[i, j]
            T.copy(t, Xt[0, bx * block_M])
            for i in T.Parallel(block_M):
                v[i] = V[bx * block_M + i] * 2
            for i, j in T.Parallel(block_M, N):
                x[i, j] = x[i, j] * v[i]
            T.copy(x, Y[bx * block_M, 0])

    return main
