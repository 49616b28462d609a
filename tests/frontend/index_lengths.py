# Index inputs, lengths: `Lens` indexes nothing; it is only compared against positions that come
# from `Blk` (whose values times `block` index KV's rows), as sparse decode kernels compare
# `i_s * block_N + j >= cache_seqlens[b]`. Such a table is a set of lengths
# (core/interp/index_inputs.h): each gets the full row count of KV, so the block Blk selects is
# never masked whole. Random values in [-4, 4] masked every row and the softmax below was NaN;
# with lengths it is a probability row (each row of Out sums to 1, so the mean is 1 / block).
# `Scale` is compared against a constant only, so it stays random data.
# RUN: %tilec run %s --device cpu 2>&1 | FileCheck %s
# CHECK: note: input `Blk`: positions in [0, 4) (they index `KV` dim 0)
# CHECK-NEXT: note: input `Lens`: lengths, each 64 (past every position `Blk` selects)
# CHECK-NOT: note: input `Scale`
# CHECK: output Out: float32[8, 16] mean=0.0625
# CHECK-NOT: nan
#
# tileplay: kernel=masked_softmax
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def masked_softmax(batch=8, seq_kv=64, block=16):
    @T.prim_func
    def main(
        KV: T.Tensor([seq_kv], T.float32),
        Blk: T.Tensor([batch], T.int32),
        Lens: T.Tensor([batch], T.int32),
        Scale: T.Tensor([batch], T.int32),
        Out: T.Tensor([batch, block], T.float32),
    ):
        with T.Kernel(batch, threads=32) as b:
            s = T.alloc_fragment([block], T.float32)
            m = T.alloc_fragment([1], T.float32)
            z = T.alloc_fragment([1], T.float32)
            i_s = Blk[b]
            for j in T.Parallel(block):
                s[j] = T.if_then_else(i_s * block + j >= Lens[b], -T.infinity(T.float32), KV[i_s * block + j])
                if Scale[b] > 100:
                    s[j] = s[j] * 2.0
            T.reduce_max(s, m, dim=0)
            for j in T.Parallel(block):
                s[j] = T.exp(s[j] - m[0])
            T.reduce_sum(s, z, dim=0)
            for j in T.Parallel(block):
                Out[b, j] = s[j] / z[0]

    return main
