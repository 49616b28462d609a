# share-shared-memory: a shared tile the kernel never names takes no bytes. Three 96 KiB tiles
# would need 288 KiB, over sm_90a's 227 KiB; the third is allocated but used only when a
# factory flag is on (as TileLang's dequantize GEMM allocates Bias_shared with or without bias).
# Off, the kernel plans the two tiles it uses; on, it is refused at the allocation. (unstage-shared
# is off: it would keep these element-wise tiles in registers and need no shared memory at all.)
# RUN: %tilec compile %s --arch sm_90a --json --pass-config tp.unstage_shared=false | FileCheck %s
# RUN: not %tilec compile %s --arch sm_90a -D with_bias=True --pass-config tp.unstage_shared=false 2>&1 | FileCheck --check-prefix=BIAS %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: "dynamic_shared_bytes": 196608
# BIAS: unused_shared.py:[[@LINE+13]]:22: error: shared memory 294912 bytes exceeds the sm_90a limit of 232448 bytes per block [SharedMemoryExceeded]
# CPU: output C: float32[384, 128] mean=0.01517 rms=2.02 min=-7.602 max=8.547
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def rows(M=384, N=128, with_bias=False):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), Bias: T.Tensor((M, N), "float16"), C: T.Tensor((M, N), "float32")):
        with T.Kernel(1, threads=128) as bx:
            A_s = T.alloc_shared((M, N), "float16")
            B_s = T.alloc_shared((M, N), "float16")
            Bias_s = T.alloc_shared((M, N), "float16")
            T.copy(A, A_s)
            if with_bias:
                T.copy(Bias, Bias_s)
                for i, j in T.Parallel(M, N):
                    B_s[i, j] = A_s[i, j] * 2 + Bias_s[i, j]
            else:
                for i, j in T.Parallel(M, N):
                    B_s[i, j] = A_s[i, j] * 2
            T.copy(B_s, C)

    return main
