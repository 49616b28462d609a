# sm_90a: the warp-specialized GEMM's epilogue reads its vector operands from shared memory.
# On a persistent grid, a bias added first to the accumulator becomes its starting value: the
# clear turns into a fill from a float32 copy both consumer warpgroups share, each tile loads
# the next tile's bias into registers as it starts and parks it after its main loop (between
# two barriers of the 256 consumer threads), the first tile's comes before the tile loop, and
# the epilogue has no add left. Other vector operands, indexed by the accumulator's column
# (bias) or row (scale) only, are loaded into registers as the tile starts, parked after the
# main loop in a shared vector per warpgroup between two warpgroup barriers, and read from there
# by the epilogue. Left alone: a 2-D operand (row and column), a load under a condition, a
# tensor the kernel writes. The copies fit beside the 4-slot ring: 231488 bytes for the sample.
# RUN: %tilec compile %samples/gemm_bias_gelu.py --emit cuda --no-lineinfo --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 | FileCheck %s --check-prefix=BIAS
# RUN: %tilec compile %samples/gemm_bias_gelu.py --json --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 | FileCheck %s --check-prefix=SMEM
# RUN: %tilec compile %S/../gpu/data/epilogue_vectors.py --emit cuda --no-lineinfo --arch sm_90a | FileCheck %s --check-prefix=PERSIST --implicit-check-not=tp_ws_bias
# RUN: sed -e 's/^\( *\)C_local = T.alloc_fragment.*$/&\n\1X_shared = T.alloc_shared((64, 8), dtype)/' %samples/gemm_bias_gelu.py > %t.py
# RUN: %tilec compile %t.py --emit cuda --no-lineinfo --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 | FileCheck %s --check-prefix=ROOM --implicit-check-not=tp_ws_bias --implicit-check-not=tp_ws_vec
# RUN: %tilec compile %t.py --json --arch sm_90a -D block_M=128 -D block_N=256 -D block_K=64 -D num_stages=4 | FileCheck %s --check-prefix=SMEM
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_90a | FileCheck %s --check-prefix=MIX
# RUN: %tilec compile %s --emit cuda --no-lineinfo --arch sm_90 | FileCheck %s --check-prefix=SM90 --implicit-check-not=tp_ws_vec
# BIAS: float* tp_ws_bias = reinterpret_cast<float*>(tp_smem + 229440);
# BIAS: tp::setmaxnreg_inc<232>();
# BIAS-NEXT: const half_t tp_ws_bias0_0 = bias[tp::min(((tp::floordiv((tp_pid % 160), {{.*}}) * 256) + tx), 4095)];
# BIAS-NEXT: tp_ws_bias[tx] = static_cast<float>(tp_ws_bias0_0);
# BIAS-NEXT: tp::named_barrier_sync(3, 256);
# BIAS: for (int tp_tile = 0;
# BIAS: const half_t tp_ws_bias_next0 = (((tp_tile + 1) < tp::floordiv(((512 + (static_cast<int>(gridDim.x) - 1)) - tp_pid), static_cast<int>(gridDim.x))) ? bias[{{.*}}((tp_tile + 1) * static_cast<int>(gridDim.x)){{.*}}] : half_t(0.0f));
# BIAS: C_local[tp_f] = tp_ws_bias[((((((tx / 32) / 8) * 256) + (((tp_f / 4) % 32) * 8)) + (2 * (tx % 4))) + (tp_f % 2))];
# BIAS: ::consume(
# BIAS: ::finish(
# BIAS-NEXT: tp::named_barrier_sync(3, 256);
# BIAS-NEXT: tp_ws_bias[tx] = static_cast<float>(tp_ws_bias_next0);
# BIAS-NEXT: tp::named_barrier_sync(3, 256);
# BIAS: const float x = C_local[tp_f_1];
# BIAS-NOT: bias[
# BIAS: ::store_tma(
# SMEM: "dynamic_shared_bytes": 231488
# A kernel that also keeps a 1 KiB shared buffer of its own leaves no room for the copies: the
# epilogue reads the bias from global as written, and the kernel still fits (same 231488 bytes).
# ROOM: half_t* X_shared = reinterpret_cast<half_t*>(tp_smem + 196608);
# ROOM: static_cast<float>(bias[tp::min(((bx * 256) + j), 4095)])
# Persistent, but the accumulator is scaled before the bias is added: no fold; the scale by row
# (each warpgroup's 64-entry slice) and the bias by column are read from shared memory.
# PERSIST: half_t* tp_ws_vec1 = reinterpret_cast<half_t*>(tp_smem + 229440);
# PERSIST: half_t* tp_ws_vec0 = reinterpret_cast<half_t*>(tp_smem + 230464);
# PERSIST: for (int tp_tile = 0;
# PERSIST: const half_t tp_ws_pre1_1 = bias[((bx * 256) + ((tx % 128) + 128))];
# PERSIST: (C_local[tp_f_1] * static_cast<float>(tp_ws_vec0[i])) + static_cast<float>(tp_ws_vec1[(((tx / 128) * 256) + j)])
# MIX-DAG: half_t* tp_ws_vec0 =
# MIX-DAG: half_t* tp_ws_vec1 =
# MIX: } else {
# Rows: warpgroup w holds rows 64 w .. 64 w + 63, so its slice starts at 64 w; half the
# threads carry an entry, the rest load the last one and store nothing.
# MIX-DAG: const half_t tp_ws_pre0_0 = scale[((by * 128) + (((tx / 128) * 64) + tp::min((tx % 128), 63)))];
# MIX-DAG: const half_t tp_ws_pre1_0 = bias[((bx * 128) + (tx % 128))];
# MIX: ::finish(
# MIX-NEXT: tp::named_barrier_sync(((tx / 128) + 1), 128);
# MIX-NEXT: if (((tx % 128) < 64)) {
# MIX-NEXT: tp_ws_vec0[(((tx / 128) * 64) + (tx % 128))] = tp_ws_pre0_0;
# MIX: tp_ws_vec1[(((tx / 128) * 128) + (tx % 128))] = tp_ws_pre1_0;
# MIX-NEXT: tp::named_barrier_sync(((tx / 128) + 1), 128);
# MIX: static_cast<float>(tp_ws_vec0[i])
# MIX-SAME: static_cast<float>(tp_ws_vec1[(((tx / 128) * 128) + j)])
# MIX-SAME: static_cast<float>(D[
# MIX-SAME: static_cast<float>(C[
# MIX-SAME: (((bx * 128) + j) < 1024) ? static_cast<float>(shift[((bx * 128) + j)])
# SM90: bias[((bx * 128) + j)]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def mixed_epilogue(M=1024, N=1024, K=1024, block_M=128, block_N=128, block_K=64, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        bias: T.Tensor((N,), dtype),
        scale: T.Tensor((M,), dtype),
        shift: T.Tensor((N,), dtype),
        D: T.Tensor((M, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=4):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = (C_local[i, j] * T.cast(scale[by * block_M + i], accum_dtype) + T.cast(bias[bx * block_N + j], accum_dtype)
                                 + T.cast(D[by * block_M + i, bx * block_N + j], accum_dtype) + T.cast(C[by * block_M + i, bx * block_N + j], accum_dtype)
                                 + T.if_then_else(bx * block_N + j < N, T.cast(shift[bx * block_N + j], accum_dtype), 0.0))
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
