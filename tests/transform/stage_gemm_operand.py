# stage-fragments: a float16 T.gemm with A in registers on a 2x2 warp grid (the default Square
# policy for a 64x64 accumulator on 4 warps) would need warps of one row to share A's rows;
# mma.sync's register A gives each warp whole rows, so A goes through a shared tile and the
# gemm becomes gemm_ss. A FullRow gemm keeps A in registers (gemm_rs).
# RUN: %tilec compile %s --emit lowered --print-after=stage-fragments --arch sm_80 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit lowered --arch sm_80 --remarks 2>&1 | FileCheck --check-prefix=LOWERED %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK-LABEL: IR after stage-fragments
# CHECK: p_stage = T.alloc_shared((64, 32), "float16")
# CHECK: T.copy(p[0:64, 0:32], p_stage[0:64, 0:32])
# CHECK-NEXT: T.gemm(p_stage, v_shared, acc, clear_accum=True)
# CHECK-NEXT: T.gemm(q, v_shared, acc2, clear_accum=True, policy=T.GemmWarpPolicy.FullRow)
# The sum meets two accumulator layouts (2x2 and 4x1 warps): acc2 is read through a copy too.
# CHECK-NEXT: T.copy(acc2[0:64, 0:64], acc2_stage[0:64, 0:64])
# CHECK: acc[i, j] = acc[i, j] + acc2_stage[i, j]
# LOWERED: remark: T.gemm with A in registers not used: the accumulator's warp grid does not give each warp whole rows of A in its own layout; `p` goes through a shared-memory copy [FastPathNotTaken]
# LOWERED: tp::gemm_ss<64, 64, 32, 2, 2,
# LOWERED: tp::gemm_rs<64, 64, 32, 4, 1,
# CPU: output O: float32[128, 64]
#
# tileplay: kernel=pv
# tileplay: args M=128
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def pv(M, D=64, block_M=64, block_K=32):
    @T.prim_func
    def main(P: T.Tensor((M, block_K), "float16"), V: T.Tensor((block_K, D), "float16"), O: T.Tensor((M, D), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            p = T.alloc_fragment((block_M, block_K), "float16")
            q = T.alloc_fragment((block_M, block_K), "float16")
            v_shared = T.alloc_shared((block_K, D), "float16")
            acc = T.alloc_fragment((block_M, D), "float32")
            acc2 = T.alloc_fragment((block_M, D), "float32")
            T.copy(P[bx * block_M, 0], p)
            T.copy(P[bx * block_M, 0], q)
            T.copy(V, v_shared)
            T.gemm(p, v_shared, acc, clear_accum=True)
            T.gemm(q, v_shared, acc2, clear_accum=True, policy=T.GemmWarpPolicy.FullRow)
            for i, j in T.Parallel(block_M, D):
                acc[i, j] = acc[i, j] + acc2[i, j]
            T.copy(acc, O[bx * block_M, 0])

    return main
