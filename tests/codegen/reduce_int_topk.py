# Top-k by repeated arg-max (TileLang's examples/topk): T.reduce_max of a float fragment, then of
# an int32 fragment of column indices in the same mma accumulator layout into an int32 row
# vector. The int reduction runs in int partials (exact for any index) through the same
# tp::reduce_rows template; the int row vector is a 4-slot register array like the float one.
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_80 -D M=320 -D N=128 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 -D M=320 -D N=128 | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_80 -D M=320 -D N=128 -D threads=512 | FileCheck %s --check-prefix=T512
# CHECK: float max_val[4];
# CHECK-NEXT: int expand_max_idx[64];
# CHECK-NEXT: int max_idx[4];
# CHECK: tp::reduce_rows<tp::AccLayout<64, 128, 2, 2>, tp::ReduceOp::Max, true>(&logits_frag[0], &max_val[0], &tp_reduce_scratch[0], tx);
# CHECK: expand_max_idx[tp_f_1] = ((max_val[(((tp_f_1 / 32) * 2) + ((tp_f_1 % 4) / 2))] == logits_frag[tp_f_1]) ? j : expand_max_idx[tp_f_1]);
# CHECK: tp::reduce_rows<tp::AccLayout<64, 128, 2, 2>, tp::ReduceOp::Max, true>(&expand_max_idx[0], &max_idx[0], &tp_reduce_scratch[0], tx);
# CHECK: topk_indices[((((bx * 64) + i) * 6) + k)] = max_idx[tp_s];
# PTX: .visible .entry tl_topk_kernel(
# PTX: shfl.sync.bfly.b32
# PTX: max.s32
# T512: tp::reduce_rows<tp::AccLayout<64, 128, 4, 4>, tp::ReduceOp::Max, true>(&expand_max_idx[0], &max_idx[0], &tp_reduce_scratch[0], tx);
import tilelang
import tilelang.language as T


@tilelang.jit
def tl_topk(logits, topk=6, blk_m=64, threads=128):
    M, N = T.const("M, N")
    dtype = T.float32

    logits: T.Tensor([M, N], dtype)
    topk_gates = T.empty([M, topk], dtype)
    topk_indices = T.empty([M, topk], T.int32)

    with T.Kernel(T.ceildiv(M, blk_m), threads=threads) as bx:
        logits_frag = T.alloc_fragment([blk_m, N], dtype=dtype)
        max_val = T.alloc_fragment([blk_m], dtype=dtype)
        expand_max_idx = T.alloc_fragment([blk_m, N], T.int32)
        max_idx = T.alloc_fragment([blk_m], T.int32)

        T.copy(logits[bx * blk_m, 0], logits_frag)

        for k in T.serial(topk):
            T.fill(expand_max_idx, -1)
            T.reduce_max(logits_frag, max_val, dim=1, clear=True)

            for i, j in T.Parallel(blk_m, N):
                expand_max_idx[i, j] = T.if_then_else(max_val[i] == logits_frag[i, j], j, expand_max_idx[i, j])

            T.reduce_max(expand_max_idx, max_idx, dim=1, clear=True)

            for i, j in T.Parallel(blk_m, N):
                logits_frag[i, j] = T.if_then_else(max_val[i] == logits_frag[i, j], -10000.0, logits_frag[i, j])

            for i in T.Parallel(blk_m):
                topk_gates[bx * blk_m + i, k] = max_val[i]
                topk_indices[bx * blk_m + i, k] = max_idx[i]

    return topk_gates, topk_indices
