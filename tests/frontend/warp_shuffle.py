# T.tvm_warp_shuffle (TileLang's hadamard example): the value of another lane of the warp,
# emitted as __shfl_sync; on the CPU interpreter the block runs as threads that exchange it.
# A butterfly over 5 rounds gives every lane its warp's sum: 0 + ... + 31 = 496 in warp 0,
# 32 + ... + 63 = 1520 in warp 1.
# RUN: %tilec compile %s --arch sm_80 --emit cuda --no-lineinfo | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: not %tilec compile %s --emit ir -D width=48 2>&1 | FileCheck --check-prefix=WIDTH %s
# CHECK: v[0] = (v[0] + tp::warp_shuffle(v[0], (tx ^ (1 << i)), 32));
# CPU: output B: float32[64] mean=1008 {{.*}} min=496 max=1520
# WIDTH: warp_shuffle.py:[[@LINE+16]]:{{[0-9]+}}: error: {{.*}}`T.tvm_warp_shuffle` needs warp_size 32 and a width that is a power of two up to 32 [TypeMismatch]
#
# tileplay: kernel=butterfly
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[0])
def butterfly(N=64, width=32):
    @T.prim_func
    def main(B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding(0)
            v = T.alloc_local((1,), "float32")
            v[0] = T.cast(tx, "float32")
            for i in T.unroll(5):
                v[0] = v[0] + T.tvm_warp_shuffle(0xFFFFFFFF, v[0], tx ^ (1 << i), width, 32)
            B[tx] = v[0]

    return main
