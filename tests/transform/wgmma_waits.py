# RUN: %tilec compile %s --arch sm_90a --print-after=wgmma-waits --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_90a --pass-config tp.disable_async_wgmma=true --print-after=wgmma-waits --emit lowered 2>&1 | FileCheck %s --check-prefix=SYNC
# wgmma-waits: each wgmma group's wait moves down past the statements that touch nothing the
# group writes or any write to what it reads (here the first group passes the bias loop over
# another fragment and the second issue, which reads the same A tile: it waits with one newer
# group pending), and stops before the first statement that reads its accumulator. `tp.disable_async_wgmma` keeps every wait right after its issue.
# CHECK: IR after wgmma-waits
# CHECK: # attr tp.async_wgmma = 1
# CHECK: T.evaluate(T.tp.async_call("tp::gemm_wgmma_ss<64, 64, 64, 4, 1, false, false, half_t, true>", T.tp.addr_r(A_s[0, 0]), T.tp.addr_r(B_s[0, 0]), T.tp.addr_w(C1[0]), tx, T.tp.proxy_fence(1)))
# CHECK-NEXT: for tp_f
# CHECK: T.evaluate(T.tp.async_call("tp::gemm_wgmma_ss<64, 64, 64, 4, 1, false, false, half_t>", T.tp.addr_r(A_s[0, 0]), T.tp.addr_r(D_s[0, 0]), T.tp.addr_w(C2[0]), tx, T.tp.proxy_fence(1)))
# CHECK-NEXT: T.evaluate(T.tp.async_wait(1, T.tp.addr_w(C1[0]), T.tp.addr_r(B_s[0, 0]), T.tp.addr_r(A_s[0, 0])))
# CHECK-NEXT: T.evaluate(T.tp.async_wait(0, T.tp.addr_w(C2[0]), T.tp.addr_r(D_s[0, 0]), T.tp.addr_r(A_s[0, 0])))
# CHECK-NEXT: for tp_f
# CHECK: C1[tp_f] = C1[tp_f] + C2[tp_f]
# SYNC-NOT: tp.async_wgmma
# SYNC: T.tp.addr_w(C1[0]), tx, T.tp.proxy_fence(1)))
# SYNC-NEXT: T.evaluate(T.tp.async_wait(0, T.tp.addr_w(C1[0])
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def two_products(M=128, N=64, K=64):
    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"), D: T.Tensor((K, N), "float16"),
             bias: T.Tensor((N,), "float32"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, 64), threads=128) as bx:
            A_s = T.alloc_shared((64, K), "float16")
            B_s = T.alloc_shared((K, N), "float16")
            D_s = T.alloc_shared((K, N), "float16")
            C1 = T.alloc_fragment((64, N), "float32")
            C2 = T.alloc_fragment((64, N), "float32")
            T.copy(A[bx * 64, 0], A_s)
            T.copy(B[0, 0], B_s)
            T.copy(D[0, 0], D_s)
            T.gemm(A_s, B_s, C1, clear_accum=True)
            for i, j in T.Parallel(64, N):
                C2[i, j] = bias[j]
            T.gemm(A_s, D_s, C2)
            for i, j in T.Parallel(64, N):
                C1[i, j] = C1[i, j] + C2[i, j]
            T.copy(C1, C[bx * 64, 0])
    return main
