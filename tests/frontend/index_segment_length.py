# Index inputs: a segment's length (`cu_q[b + 1] - cu_q[b]`) added to a position is within the
# range of the offsets table's values, like either end. A varlen backward starts its loop at
# min(by * block, q_len // block) blocks into the segment, so its rows are `q_start + (k +
# loop_st) * block`; that index used to count as "subtracted" and leave `cu_q` random, sending the
# GPU run out of bounds (TileLang's example_gqa_bwd_tma_reduce_varlen faulted on the H200). Here
# `cu_q` gets offsets over Q's rows and the rows past the first two blocks of each segment are
# copied; the rest of Out stays zero.
# RUN: %tilec run %s --device cpu 2>&1 | FileCheck %s
# CHECK: note: input `cu_q`: evenly spaced offsets 0..256 (they index `{{Q|Out}}` dim 0)
# CHECK: output Out: float32[256, 16] mean=0.003046 rms=0.7277 min=-3.407 max=3.4
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def segment_tail(batch=4, total=256, dim=16, block=16):
    @T.prim_func
    def main(Q: T.Tensor([total, dim], T.float32), cu_q: T.Tensor([batch + 1], T.int32), Out: T.Tensor([total, dim], T.float32)):
        with T.Kernel(batch, threads=32) as bz:
            q_start = cu_q[bz]
            q_len = cu_q[bz + 1] - q_start
            loop_st = T.min(2, q_len // block)
            for k in T.serial(T.ceildiv(q_len, block) - loop_st):
                for i, d in T.Parallel(block, dim):
                    if (k + loop_st) * block + i < q_len:
                        Out[q_start + (k + loop_st) * block + i, d] = Q[q_start + (k + loop_st) * block + i, d]

    return main
