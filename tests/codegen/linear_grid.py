# A grid past CUDA's 65535 blocks in y (or z) is launched as one x dimension of all its blocks,
# and each block takes its indices apart (x fastest, as the DSL's grid counts them). The launch
# JSON gives the launched grid and the DSL's. Below that limit nothing changes. Past 2^31
# blocks in all, the launch is refused at the T.Kernel line.
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec compile %s --json --arch sm_80 | FileCheck --check-prefix=JSON %s
# RUN: %tilec compile %s --emit cuda --arch sm_80 -D R=65535 | FileCheck --check-prefix=SMALL %s
# RUN: not %tilec compile %s --arch sm_80 -D R=65536 -D C=40000 2>&1 | FileCheck --check-prefix=HUGE %s
# RUN: %tilec run %s --device cpu -D R=70000 -D C=1 | FileCheck --check-prefix=CPU %s
# CHECK: const int tp_lin = blockIdx.x;
# CHECK-NEXT: const int tp_bid_x = tp_lin % 3;
# CHECK-NEXT: const int tp_bid_y = (tp_lin / 3);
# CHECK: const int bx = tp_bid_x;
# CHECK-NEXT: const int by = tp_bid_y;
# JSON: "grid": [
# JSON-NEXT: 210003
# JSON: "logical_grid": [
# JSON-NEXT: 3,
# JSON-NEXT: 70001
# SMALL-NOT: tp_lin
# SMALL: const int by = blockIdx.y;
# HUGE: linear_grid.py:[[@LINE+10]]:14: error: invalid `T.Kernel` launch: the grid has 2147483648 or more blocks, past CUDA's limit of 2147483647 for a grid launched in one dimension (its y or z extent is over 65535); use larger blocks [BadKernelLaunch]
# CPU: output B: int32[70000, 1] mean=2.8e+05 rms=3.233e+05 min=1 max=5.6e+05
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def tall(R=70001, C=3):
    @T.prim_func
    def main(B: T.Tensor((R, C), "int32")):
        with T.Kernel(C, R, threads=32) as (bx, by):
            if T.get_thread_binding() == 0:
                B[by, bx] = by * 8 + bx + 1

    return main
