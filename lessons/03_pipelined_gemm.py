# Lesson 3: a pipelined GEMM (T.Pipelined, num_stages) with a copy that loads the wrong slice of B.
#
# `T.Pipelined` with `num_stages=2` keeps two slices of A and B in flight: while T.gemm
# works on slice k, the copies of slice k + 1 are already loading (cp.async on Ampere, TMA
# on Hopper), which hides the latency of global memory. The compiler builds the buffers and
# waits from this one loop.
#
# Pipelining changes when the copies run, never what they copy: slice k of B is the block_K
# rows starting at row `k * block_K`. One copy below starts at row `k` instead, so every
# block multiplies mostly the wrong rows of B. The kernel compiles and runs; only the check
# notices. Find the copy, fix its index, and Run.
#
# Afterwards, compile for sm_80 and look at the CUDA view: a prologue issues the first
# slice's copies (`cp_async_commit`); each iteration waits for its slice (`cp_async_wait`),
# issues the copies of the next one into the other buffer, then runs its T.gemm.
#
# tileplay: lesson Pipelined GEMM: each stage loads slice k
# tileplay: hint The A copy starts at column `k * block_K`; compare it with where the B copy starts.
# tileplay: hint B is K x N, so its slice k starts at row `k * block_K`: `T.copy(B[k * block_K, bx * block_N], B_shared)`.
# tileplay: kernel=matmul
# tileplay: args M=4096 N=4096 K=4096
# tileplay: cpu-args M=128 N=128 K=128
# tileplay: flops 2*M*N*K
# tileplay: bytes 2*(M*K + K*N + M*N)
# tileplay: baseline torch: A @ B
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def matmul(M, N, K, block_M=64, block_N=64, block_K=32, num_stages=2, threads=128, dtype="float16", accum_dtype="float"):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                # TODO(lesson): this copy reads the wrong rows of B for slice k
                T.copy(B[k, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)

            T.copy(C_local, C[by * block_M, bx * block_N])

    return main
