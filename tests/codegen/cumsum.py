# T.cumsum: an inclusive prefix sum along `dim`, each line a serial loop inside a T.Parallel
# nest over the other dims; a fragment is scanned through a shared copy (copy in, scan, copy
# out), as TileLang's cumsum of a fragment does. Ones summed forward give 1..N per row,
# backward N..1.
# RUN: %tilec compile %s --emit ir | FileCheck --check-prefix=IR %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: rm -rf %t && %tilec run %s --device cpu --save-outputs %t
# RUN: python3 %S/Inputs/npy_check.py %t/Fwd.npy prefix 16
# RUN: python3 %S/Inputs/npy_check.py %t/Bwd.npy suffix 16
# IR: ones_scan = T.alloc_shared((16, 16), "int32")
# IR: for tp_s0 in T.Parallel(16)
# IR-NEXT: for tp_scan in T.serial(1, 16)
# IR-NEXT: fwd[tp_s0, tp_scan] = fwd[tp_s0, tp_scan - 1] + fwd[tp_s0, tp_scan]
# IR: T.copy(ones[0:16, 0:16], ones_scan[0:16, 0:16])
# IR: ones_scan[tp_s0, 15 - tp_scan] = ones_scan[tp_s0, 15 - tp_scan + 1] + ones_scan[tp_s0, 15 - tp_scan]
# IR: T.copy(ones_scan[0:16, 0:16], bwd[0:16, 0:16])
#
# tileplay: kernel=scan
# tileplay: args N=16
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[0, 1])
def scan(N):
    @T.prim_func
    def main(Fwd: T.Tensor((N, N), "int32"), Bwd: T.Tensor((N, N), "int32")):
        with T.Kernel(1, threads=128) as bx:
            fwd = T.alloc_shared((N, N), "int32")
            ones = T.alloc_fragment((N, N), "int32")
            bwd = T.alloc_fragment((N, N), "int32")
            T.fill(fwd, 1)
            T.fill(ones, 1)
            T.cumsum(fwd, dim=1)
            T.cumsum(ones, bwd, dim=-1, reverse=True)
            T.copy(fwd, Fwd)
            T.copy(bwd, Bwd)

    return main
