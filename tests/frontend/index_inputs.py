# Index inputs: integer tensors a kernel uses as positions in other tensors get in-range values
# on a run (core/interp/index_inputs.h) instead of random integers in [-4, 4], which would send
# a correct varlen kernel out of bounds. `cu_seqlens`, read at `b` and `b + 1` as the bounds of
# a segment of Q's rows, gets evenly spaced offsets over Q's rows; `Idx`, whose values index
# KV's rows, gets positions below KV's row count, and `Blk`, whose values times 16 index them,
# positions below 64 / 16; `Counts` is only data and stays random, and so does `Pad`, whose
# values are subtracted on the way to an index (grouped GEMMs' `m - padded[g] + offsets[g]`: tables
# related in a way in-range values alone would break); the
# unset scalar `max_seqlen`, a grid size, takes the longest segment. OUT (each segment's rows
# copied block by block) must equal REF (every row copied by a plain second launch): the
# segments cover Q exactly once, also when they differ in length (batch=3: 85, 85 and 86 rows).
# RUN: %tilec run %s --device cpu 2>&1 | FileCheck %s
# RUN: %tilec run %s --device cpu -D batch=3 2>&1 | FileCheck --check-prefix=THREE %s
# CHECK: note: input `max_seqlen` = 64: the longest segment of the offsets tables
# CHECK-NEXT: note: input `cu_seqlens`: evenly spaced offsets 0..256 (they index `{{Q|Out}}` dim 0)
# CHECK-NEXT: note: input `Idx`: positions in [0, 64) (they index `KV` dim 0)
# CHECK-NEXT: note: input `Blk`: positions in [0, 4) (they index `KV` dim 0)
# CHECK-NOT: note: input `Counts`
# CHECK-NOT: note: input `Pad`
# CHECK: output Out: float32[256, 16] [[STATS:.*]]
# CHECK: output Ref: float32[256, 16] [[STATS]]
# THREE: note: input `max_seqlen` = 86: the longest segment of the offsets tables
# THREE: output Out: float32[256, 16] [[STATS3:.*]]
# THREE: output Ref: float32[256, 16] [[STATS3]]
#
# tileplay: kernel=varlen_gather
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-3, -2, -1])
def varlen_gather(batch=4, total=256, dim=16, topk=4, seq_kv=64, block=32):
    @T.prim_func
    def main(
        Q: T.Tensor([total, dim], T.float32),
        KV: T.Tensor([seq_kv, dim], T.float32),
        cu_seqlens: T.Tensor([batch + 1], T.int32),
        Idx: T.Tensor([total, topk], T.int32),
        Blk: T.Tensor([total], T.int32),
        Counts: T.Tensor([total], T.int32),
        Pad: T.Tensor([batch], T.int32),
        max_seqlen: T.int32,
        Out: T.Tensor([total, dim], T.float32),
        Ref: T.Tensor([total, dim], T.float32),
        G: T.Tensor([total, dim], T.float32),
    ):
        with T.Kernel(T.ceildiv(max_seqlen, block), batch, threads=32) as (bx, bz):
            start = cu_seqlens[bz]
            end = cu_seqlens[bz + 1]
            for i, d in T.Parallel(block, dim):
                if start + bx * block + i < end:
                    Out[start + bx * block + i - Pad[bz] + Pad[bz], d] = Q[start + bx * block + i, d]
                    block_row = Blk[start + bx * block + i] * 16
                    G[start + bx * block + i, d] = KV[Idx[start + bx * block + i, 0], d] + KV[block_row + d % 16, d] + Counts[start + bx * block + i]
        with T.Kernel(total, threads=32) as r:
            for d in T.Parallel(dim):
                Ref[r, d] = Q[r, d]

    return main
