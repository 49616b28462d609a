# Roles split by hand: the kernel reads its thread index and gives each interval of it a role,
# `if tx < 64:` ... `elif tx < 128:` ... `else:`, the roles handing tiles to each other through
# mbarriers (a producer fills a K tile of A and B in shared memory, element by element from its
# own thread index, and arrives on `full`; two consumers each accumulate one half of C's
# columns with T.gemm and arrive on `empty`, which frees the tiles for the next K step). The CPU
# interpreter runs the block as its threads: a wait parks its thread until the other roles'
# arrivals complete the phase, a tile op in a role runs once for the role's threads, and each
# thread's arrive counts one arrival. C must be A @ B; in program order the first wait would
# never complete.
# RUN: rm -rf %t && %tilec run %s --device cpu-interp --save-inputs %t --save-outputs %t 2>&1 | FileCheck %s
# RUN: python3 %S/../codegen/Inputs/npy_matmul.py %t/A.npy %t/B.npy %t/C.npy
# RUN: rm -rf %t && %tilec run %s --device cpu-interp -D M=64 -D K=96 --threads 2 --save-inputs %t --save-outputs %t > /dev/null
# RUN: python3 %S/../codegen/Inputs/npy_matmul.py %t/A.npy %t/B.npy %t/C.npy
# CHECK-NOT: error
# CHECK-NOT: warning
# CHECK: output C: float32[32, 64]
#
# tileplay: kernel=split_roles
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2])
def split_roles(M=32, N=64, K=64, block_K=16):
    half = N // 2

    @T.prim_func
    def main(A: T.Tensor((M, K), T.float16), B: T.Tensor((K, N), T.float16), C: T.Tensor((M, N), T.float32)):
        with T.Kernel(1, threads=192) as bx:
            A_s = T.alloc_shared((M, block_K), T.float16)
            B_s = T.alloc_shared((block_K, N), T.float16)
            acc_l = T.alloc_fragment((M, half), T.float32)
            acc_r = T.alloc_fragment((M, half), T.float32)
            full = T.alloc_barrier(arrive_count=64)
            empty = T.alloc_barrier(arrive_count=128)
            tx = T.get_thread_binding()
            if tx < 64:
                T.clear(acc_l)
                for k in T.serial(K // block_K):
                    T.barrier_wait(full, k % 2)
                    T.gemm(A_s, B_s[:, 0:half], acc_l)
                    T.barrier_arrive(empty)
                T.copy(acc_l, C[0, 0])
            elif tx < 128:
                T.clear(acc_r)
                for k in T.serial(K // block_K):
                    T.barrier_wait(full, k % 2)
                    T.gemm(A_s, B_s[:, half:N], acc_r)
                    T.barrier_arrive(empty)
                T.copy(acc_r, C[0, half])
            else:
                p = tx - 128
                for k in T.serial(K // block_K):
                    T.barrier_wait(empty, (k + 1) % 2)
                    for e in T.serial(T.ceildiv(M * block_K, 64)):
                        if e * 64 + p < M * block_K:
                            A_s[(e * 64 + p) // block_K, (e * 64 + p) % block_K] = A[(e * 64 + p) // block_K, k * block_K + (e * 64 + p) % block_K]
                    for e in T.serial(block_K * N // 64):
                        B_s[(e * 64 + p) // N, (e * 64 + p) % N] = B[k * block_K + (e * 64 + p) // N, (e * 64 + p) % N]
                    T.barrier_arrive(full)

    return main
