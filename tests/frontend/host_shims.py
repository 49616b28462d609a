# Host helpers TileLang examples call at trace time: tilelang.math.next_power_of_2 / cdiv (the
# first also as tilelang.next_power_of_2, which the package re-exports), tvm.DataType(...).bits,
# tvm.tirx.const, and torch.cuda.get_device_capability() answered from the target (8 on sm_80, 9
# on sm_90a); torch.cuda.is_available() / current_device() /
# get_device_name() answered from the target too (an H100 for sm_90a, an A100 for sm_80), and
# torch.cuda.get_device_properties(0) with that GPU's .major / .minor / .multi_processor_count
# (108 on sm_80, 132 on sm_90a), so the constant below is 10*vec + major + mask + hopper + sms + 1.
# RUN: %tilec compile %s --emit=ir -D N=100 --arch sm_80 | FileCheck %s --check-prefix=SM80
# SM80: with T.Kernel(2, threads=32) as bx:
# SM80-NEXT: for i in T.serial(64):
# SM80: T.float16(212.0)
# RUN: %tilec compile %s --emit=ir -D N=100 --arch sm_90a | FileCheck %s --check-prefix=SM90
# SM90: T.float16(238.0)
# next_power_of_2(1) is 1 and next_power_of_2(0) is 2, as in TileLang; cdiv folds to N blocks.
# RUN: %tilec compile %s --emit=ir -D N=3 --arch sm_80 | FileCheck %s --check-prefix=ONE
# ONE: with T.Kernel(3, threads=32) as bx:
# ONE-NEXT: for i in T.serial(1):
# RUN: %tilec compile %s --emit=ir -D N=2 --arch sm_80 | FileCheck %s --check-prefix=ZERO
# ZERO: with T.Kernel(1, threads=32) as bx:
# ZERO-NEXT: for i in T.serial(2):
import tilelang
import tilelang.language as T
import tilelang.math
from tvm import DataType
import tvm
import torch


@tilelang.jit(out_idx=[1])
def shims(N, dtype="float16"):
    block = tilelang.math.next_power_of_2(N // 3)
    vec = 128 // DataType(dtype).bits
    major, minor = torch.cuda.get_device_capability()
    mask = tvm.tirx.const((1 << 4) - 1, T.uint32)
    hopper = 1 if torch.cuda.is_available() and "H100" in torch.cuda.get_device_name(torch.cuda.current_device()) else 0
    props = torch.cuda.get_device_properties(0)
    sms = props.multi_processor_count + (1 if (props.major, props.minor) == torch.cuda.get_device_capability() else 0)

    @T.prim_func
    def main(A: T.Tensor((N,), dtype), B: T.Tensor((N,), dtype)):
        with T.Kernel(tilelang.math.cdiv(N, block), threads=32) as bx:
            for i in T.serial(tilelang.next_power_of_2(N // 3)):  # the package re-exports tilelang.math
                if bx * block + i < N:
                    B[bx * block + i] = A[bx * block + i] * T.cast(vec * 10 + major + hopper + sms + T.cast(mask, "int32"), dtype)

    return main
