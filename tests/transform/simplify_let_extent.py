# simplify: a slice bounded by two lets (`kv_start = base + k * 64`, `kv_end = base + (k + 1) * 64`)
# has the extent `kv_end - kv_start`, which cancels to 64 through the lets' values, so the copy is
# a whole 64-row tile (tp::copy_g2s) like `T.copy(KV[kv_start, 0], ...)`; on sm_90a the
# accumulator leaves through a TMA store. (Two launches in one function are covered by
# tests/codegen/two_launches.py.)
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec compile %s --emit cuda --arch sm_90a | FileCheck --check-prefix=HOPPER %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: tp::copy_g2s<64, 64, 128, half_t
# HOPPER: unsigned char* tp_store_stage =
# CPU: output P: float32[2, 128, 64]
#
# tileplay: kernel=split_scores
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def split_scores(M=128, S=256, D=64, splits=2, block_M=64, block_N=64):
    @T.prim_func
    def main(Q: T.Tensor((M, D), "float16"), KV: T.Tensor((S, D), "float16"), P: T.Tensor((splits, M, D), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), splits, threads=128) as (bx, bz):
            q = T.alloc_shared((block_M, D), "float16")
            kv = T.alloc_shared((block_N, D), "float16")
            acc = T.alloc_fragment((block_M, D), "float32")
            T.copy(Q[bx * block_M, 0], q)
            T.clear(acc)
            for k in T.serial(S // splits // block_N):
                kv_start = (S // splits) * bz + k * block_N
                kv_end = (S // splits) * bz + (k + 1) * block_N
                T.copy(KV[kv_start:kv_end, :], kv)
                T.gemm(q, kv, acc)
            T.copy(acc, P[bz, bx * block_M, 0])

    return main
