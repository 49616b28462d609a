# stage-fragments: a T.Parallel loop that fills a replicated vector from a row of a striped
# fragment (`v[i] = L[k, i]`, flash decoding's combine step) has no fragment to drive it: the
# striped fragment is staged into shared memory and every thread fills its own copy of `v` from
# there. (A striped fragment written in such a loop is still refused.) The interpreter and the
# JIT run the staged IR: O[k, i] = L[k, i] - max over k of L[:, i].
# RUN: %tilec compile %s --emit lowered --print-after=stage-fragments 2>&1 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: rm -rf %t && %tilec run %s --device cpu-interp --save-inputs %t/in --save-outputs %t/out > /dev/null
# RUN: python3 %S/../codegen/Inputs/npy_colmax_shift.py %t/in/L.npy %t/out/O.npy | FileCheck --check-prefix=NPY %s
# RUN: rm -rf %t && %tilec run %s --device cpu --save-inputs %t/in --save-outputs %t/out > /dev/null
# RUN: python3 %S/../codegen/Inputs/npy_colmax_shift.py %t/in/L.npy %t/out/O.npy | FileCheck --check-prefix=NPY %s
# CHECK-LABEL: IR after stage-fragments
# CHECK: lse_stage = T.alloc_shared((4, 128), "float32")
# CHECK: T.copy(lse[0:4, 0:128], lse_stage[0:4, 0:128])
# CHECK-NEXT: for i in T.Parallel(128):
# CHECK-NEXT: v[i] = lse_stage[k, i]
# NPY: ok 4 128
#
# tileplay: kernel=shift_by_colmax
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def shift_by_colmax(S=4, M=128):
    @T.prim_func
    def main(L: T.Tensor((S, M), "float32"), O: T.Tensor((S, M), "float32")):
        with T.Kernel(1, threads=128) as bx:
            lse = T.alloc_fragment((S, M), "float32")
            mx = T.alloc_fragment((M,), "float32")
            v = T.alloc_fragment((M,), "float32")
            out = T.alloc_shared((S, M), "float32")
            T.copy(L, lse)
            T.reduce_max(lse, mx, dim=0, clear=True)
            for k in T.serial(S):
                for i in T.Parallel(M):
                    v[i] = lse[k, i]
                for i in T.Parallel(M):
                    out[k, i] = v[i] - mx[i]
            T.copy(out, O)

    return main
