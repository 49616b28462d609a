# layout-inference: the gemm accumulator becomes a 128-register array per thread, T.clear a
# per-thread loop, T.gemm a gemm_ss call on the swizzled tiles, the store a paired-store call;
# the row max reduced from it gets the 8-slot row layout and the loop over it walks the slots.
# RUN: %tilec compile %s --emit lowered --print-after=layout-inference 2>&1 | FileCheck %s
# CHECK-LABEL: IR after layout-inference
# CHECK: C_local = T.alloc_local((128,), "float32")
# CHECK: row_max = T.alloc_local((8,), "float32")
# CHECK: for tp_f in T.unroll(128):
# CHECK-NEXT: C_local[tp_f] = 0.0
# CHECK: T.tp.call("tp::gemm_ss<128, 128, 32, 2, 2, false, false, half_t, true>", T.tp.addr_r(A_shared[0, 0]), T.tp.addr_r(B_shared[0, 0]), T.tp.addr_w(C_local[0]))
# CHECK: T.tp.call("tp::reduce_rows<tp::AccLayout<128, 128, 2, 2>, tp::ReduceOp::Max, true>", T.tp.addr_r(C_local[0]), T.tp.addr_w(row_max[0]), T.tp.addr_w(tp_reduce_scratch[0]), tx)
# CHECK: for tp_s in T.unroll(8):
# CHECK-NEXT: i = tx // 32 % 2 * 64 + tp_s // 2 * 16 + tx % 32 // 4 + 8 * (tp_s % 2)
# CHECK-NEXT: Mx[by * 128 + i] = row_max[tp_s]
# CHECK: T.tp.call("tp::frag_store_global<tp::AccLayout<128, 128, 2, 2>, true>", T.tp.addr_r(C_local[0])
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2, 3])
def matmul_rowmax(M=256, N=256, K=64, block_M=128, block_N=128, block_K=32):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16"), Mx: T.Tensor((M,), "float32")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            row_max = T.alloc_fragment((block_M,), "float32")
            T.clear(C_local)
            for k in T.serial(T.ceildiv(K, block_K)):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.reduce_max(C_local, row_max, dim=1)
            for i in T.Parallel(block_M):
                Mx[by * block_M + i] = row_max[i]
            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
