# RUN: not %tilec run --device cpu %s 2>&1 | FileCheck %s
# CHECK: fail_device_assert_failed.py:[[@LINE+10]]:{{[0-9]+}}: error: `T.device_assert` failed in block (1, 0, 0): only block 0 may run [DeviceAssertFailed]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def guarded(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(2, threads=32) as bx:
            T.device_assert(bx == 0, "only block 0 may run")
            for i in T.Parallel(32):
                B[bx * 32 + i] = A[bx * 32 + i]
    return main
