# insert-syncs and cp.async: a copy's shared-memory writes land at the cp_async_wait that
# completes it, not where it is issued. Here the loop's third copy overwrites a tile the last
# iteration's gemm read, so a barrier goes before it, between the issue of the first two copies
# and their wait; that barrier orders nothing for them, and the T.Parallel loop that reads their
# tiles in other threads' elements needs its own barrier after the wait (kda's chunk_fwd_o read
# half-landed tiles on the H200 without it).
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck %s
# RUN: %tilec run %s --device cpu --check-races | FileCheck --check-prefix=CPU %s
# CHECK: for (int k = 0; k < 2; ++k) {
# CHECK: tp::copy_g2s<64, 64, 128, half_t
# CHECK-NEXT: tp::copy_g2s<64, 64, 128, half_t
# CHECK-NEXT: __syncthreads();
# CHECK-NEXT: tp::copy_g2s<64, 64, 128, half_t
# CHECK-NEXT: tp::cp_async_commit();
# CHECK-NEXT: tp::cp_async_wait<0>();
# CHECK-NEXT: __syncthreads();
# CHECK-NEXT: for (int tp_r
# CPU: output O: float16[64, 64] mean=-0.1327 rms=11.57 min=-48.53 max=45.06
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def scaled_gemm(S=64, D=128, N=64, threads=128):
    @T.prim_func
    def main(Q: T.Tensor((S, D), "float16"), G: T.Tensor((S, D), "float16"), H: T.Tensor((D, N), "float16"), O: T.Tensor((S, N), "float16")):
        with T.Kernel(1, threads=threads) as bx:
            Q_s = T.alloc_shared((S, 64), "float16")
            G_s = T.alloc_shared((S, 64), "float16")
            H_s = T.alloc_shared((64, N), "float16")
            GQ_s = T.alloc_shared((S, 64), "float16")
            acc = T.alloc_fragment((S, N), "float32")
            T.clear(acc)
            for k in T.serial(D // 64):
                T.copy(Q[0, k * 64], Q_s)
                T.copy(G[0, k * 64], G_s)
                T.copy(H[k * 64, 0], H_s)
                for i, j in T.Parallel(S, 64):
                    GQ_s[i, j] = Q_s[i, j] * G_s[i, j]
                T.gemm(GQ_s, H_s, acc)
            T.copy(acc, O)

    return main
