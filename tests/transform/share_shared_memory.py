# Three stages of 128x64 A and 64x256 B fp16 tiles (147456 bytes) plus a 128x256 fp16 epilogue
# tile (65536) exceed an A100 block's 166912 bytes laid out one after another; the epilogue tile
# is only live after the pipeline drained (cp_async_wait<0>), so it reuses the A ring's bytes,
# with a barrier before its first write. The interpreter is unaffected.
# RUN: %tilec compile %s --arch sm_80 --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --arch sm_80 --print-after=share-shared-memory --emit lowered 2>&1 | FileCheck --check-prefix=IR %s
# RUN: not %tilec compile %s --arch sm_80 -D block_N=512 --emit cuda 2>&1 | FileCheck --check-prefix=TOOBIG %s
# CHECK: half_t* A_shared = reinterpret_cast<half_t*>(tp_smem + 0);
# CHECK: half_t* B_shared = reinterpret_cast<half_t*>(tp_smem + 49152);
# CHECK: half_t* C_shared = reinterpret_cast<half_t*>(tp_smem + 0);
# CHECK: tp::cp_async_wait<0>();
# CHECK-NEXT: __syncthreads();
# CHECK-NEXT: tp::frag_store_smem
# IR: IR after share-shared-memory
# IR: # attr tp.smem_bytes = 147456
# IR: # attr tp.smem_offset.C_shared = 0
# TOOBIG: error: shared memory {{[0-9]+}} bytes exceeds the sm_80 limit of 166912 bytes per block [SharedMemoryExceeded]
#
# tileplay: kernel=matmul
# tileplay: args M=1024 N=1024 K=1024
# tileplay: cpu-args M=256 N=256 K=128
# tileplay: baseline torch: A @ B
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=128, block_N=256, block_K=64, num_stages=3):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), C: T.Tensor((M, N), "float16")):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=256) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float")
            C_shared = T.alloc_shared((block_M, block_N), "float16")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C_shared)
            T.copy(C_shared, C[by * block_M, bx * block_N])

    return main
