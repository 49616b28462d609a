# Hints and helpers of TileLang that do not change what a kernel computes, accepted as such:
# T.set_max_nreg / T.disable_warp_group_reg_alloc (a remark says they are not used),
# T.sync_threads (a block barrier), tilelang.layout.make_swizzled_layout (T.make_swizzled_layout),
# @simplify_prim_func over a factory, driver.get_num_sms() answered from the target (108 SMs for
# sm_80, 132 for sm_90a), int.bit_length(), iterating a dtype as TileLang's str dtype does,
# tilelang.DataType and GemmWarpPolicy imported from tilelang.tileop.base.
# The constant below is sms + bits of the dtype: 124 on sm_80, 148 on sm_90a.
# RUN: %tilec compile %s --emit=ir --arch sm_80 | FileCheck %s --check-prefix=SM80
# SM80: with T.Kernel(2, threads=128) as bx:
# SM80: __syncthreads()
# SM80: T.float16(124.0)
# RUN: %tilec compile %s --emit=ir --arch sm_90a | FileCheck %s --check-prefix=SM90
# SM90: T.float16(148.0)
# RUN: %tilec compile %s --arch sm_90a --remarks --emit ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
# REMARK: tile_hints.py:[[@LINE+28]]:{{[0-9]+}}: remark: `T.disable_warp_group_reg_alloc` not used: register budgets come from our own warp specialisation
# REMARK: tile_hints.py:[[@LINE+28]]:{{[0-9]+}}: remark: `T.set_max_nreg` not used: {{.*}}; the kernel computes the same without it [FastPathNotTaken]
# REMARK: tile_hints.py:[[@LINE+28]]:{{[0-9]+}}: remark: `T.no_set_max_nreg` not used
# RUN: %tilec compile %s --arch sm_80 --emit ptx -o /dev/null
# RUN: %tilec run %s --device cpu --arch sm_80 | FileCheck %s --check-prefix=CPU
# CPU: output B: float16[256, 64]
import tilelang
import tilelang.language as T
import tilelang.layout
from tilelang.carver.arch import driver
from tilelang.transform import simplify_prim_func
from tilelang.tileop.base import GemmWarpPolicy
from tilelang import DataType


@simplify_prim_func
@tilelang.jit(out_idx=[1])
def hints(N=256, dtype=T.float16):
    bits = int("".join(c for c in dtype if c.isdigit()))
    sms = driver.get_num_sms()
    block = 2 ** ((N // 2).bit_length() - 1)
    assert DataType(dtype).bits == bits and GemmWarpPolicy.FullRow.name == "FullRow"

    @T.prim_func
    def main(A: T.Tensor((N, 64), dtype), B: T.Tensor((N, 64), dtype)):
        with T.Kernel(T.ceildiv(N, block), threads=128) as bx:
            S = T.alloc_shared((block, 64), dtype)
            T.annotate_layout({S: tilelang.layout.make_swizzled_layout(S)})
            T.disable_warp_group_reg_alloc()
            T.set_max_nreg(240, 1)
            T.no_set_max_nreg()
            T.copy(A[bx * block, 0], S)
            T.sync_threads()
            for i, j in T.Parallel(block, 64):
                B[bx * block + i, j] = S[i, j] * T.cast(sms + bits, dtype)

    return main
