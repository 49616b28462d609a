# T.print on the GPU prints from one thread in the CPU interpreter's format, so a run prints
# the same lines on either device.
# RUN: %tilec compile %s --emit cuda | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) printf("msg='scale' BlockIdx=(%d, %d, %d), ThreadIdx=(0, 0, 0): dtype=float value=%f\n"
# CHECK: printf("msg='tile' BlockIdx=(%d, %d, %d), ThreadIdx=(0, 0, 0): buffer=S, index=%d, dtype=float value=%f\n"
# CHECK: printf("msg='flag' BlockIdx=(%d, %d, %d), ThreadIdx=(0, 0, 0): dtype=bool value=%s\n", {{.*}} ? "true" : "false"
# CPU: msg='scale' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=float value=2.000000
# CPU: msg='tile' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): buffer=S, index=0, dtype=float value=
# CPU: msg='flag' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=bool value=true
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def printer(N=4):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=32) as bx:
            S = T.alloc_shared((N,), "float32")
            T.copy(A[0:N], S)
            T.print(T.float32(2.0), msg="scale")
            T.print(S, msg="tile")
            T.print(bx == 0, msg="flag")
            for i in T.Parallel(N):
                B[i] = S[i] * 2.0

    return main
