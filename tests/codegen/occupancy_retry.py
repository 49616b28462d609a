# RUN: %tilec compile %s --arch sm_90a --emit ptx -o %t.ptx && FileCheck %s --check-prefix=RETRY < %t.ptx
# RUN: %tilec compile %s --arch sm_90a --emit ptx --pass-config tp.disable_occupancy_retry=true -o %t.off.ptx && FileCheck %s --check-prefix=OFF < %t.off.ptx
# RUN: %tilec compile %s --arch sm_90a --emit ptx -D N=4096 -o %t.small.ptx && FileCheck %s --check-prefix=OFF < %t.small.ptx
# A softmax row of 12000 fp32 values on 256 threads: ptxas, uncapped, gives it about 108
# registers per thread, two blocks (16 warps) to an SM. It has no T.gemm and registers are
# what limit it, so compile() builds it again for more blocks per SM, keeping the first cap
# that spills nothing (three blocks here). A 4096-wide row already fits more than a quarter
# of the warps and is left alone, as is any kernel with the retry off. (An 8000-wide row used
# to need the retry too, until the tail's guards folded away: it now takes 64 registers.)
# RETRY: .minnctapersm 3
# OFF-NOT: .minnctapersm
import tilelang.language as T


def softmax(M=16384, N=12000, threads=256):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float16"), Y: T.Tensor((M, N), "float16")):
        with T.Kernel(M, threads=threads) as bx:
            x = T.alloc_fragment((1, N), "float32")
            row_max = T.alloc_fragment((1,), "float32")
            row_sum = T.alloc_fragment((1,), "float32")
            T.copy(X[bx, 0], x)
            T.reduce_max(x, row_max, dim=1)
            for i, j in T.Parallel(1, N):
                x[i, j] = T.exp2((x[i, j] - row_max[i]) * 1.44269504)
            T.reduce_sum(x, row_sum, dim=1)
            for i, j in T.Parallel(1, N):
                x[i, j] = x[i, j] * (1.0 / row_sum[i])
            T.copy(x, Y[bx, 0])

    return main
