# A tile that a T.Pipelined loop fills from registers (attention's P tile: T.copy(acc_s, S_shared))
# is written and read in the same stage, so it is kept once; only the loop's loads from global
# memory are kept num_stages deep (cp.async rings on sm_80, TMA channels on sm_90a), as TileLang
# does. Here A's tile twice (2 x 64 KB) and P once (32 KB) fit sm_80's 163 KB; counting P twice
# (192 KB) refused the kernel before.
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: half_t* A_s = reinterpret_cast<half_t*>(tp_smem + 0);
# CHECK: half_t* P_s = reinterpret_cast<half_t*>(tp_smem + 131072);
# CHECK: tp::cp_async_wait
# CPU: output Out: float32[64, 256] mean=0.003348 rms=1.43 min=-5.594 max=6.055
#
# tileplay: kernel=fold
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def fold(K=1024):
    @T.prim_func
    def main(A: T.Tensor((64, K), "float16"), Out: T.Tensor((64, 256), "float32")):
        with T.Kernel(1, threads=512) as bx:
            A_s = T.alloc_shared((64, 512), "float16")
            P_s = T.alloc_shared((64, 256), "float16")
            acc = T.alloc_fragment((64, 256), "float32")
            for k in T.Pipelined(K // 512, num_stages=2):
                T.copy(A[0, k * 512], A_s)
                for i, j in T.Parallel(64, 256):
                    acc[i, j] = A_s[i, j] + A_s[i, j + 256]
                T.copy(acc, P_s)
                for i, j in T.Parallel(64, 256):
                    Out[i, j] = P_s[i, 255 - j]  # the last tile's

    return main
