# A helper package beside the kernel file (`from unpack import ...`, a folder with __init__.py,
# as dequantize_gemm's `quantize` is): the package's __init__ takes its names from its own
# modules by relative import (`from .nibbles import ...`, `from . import nibbles`), and the
# helper, run at trace time, builds the IR that unpacks two 4-bit values from each int8
# (`tvm.tirx.const` through `from tilelang import tvm`). The CPU run checks the nibbles.
# RUN: rm -rf %t && mkdir -p %t && cp %s %t/ && cp -r %S/Inputs/sibling_pkg/unpack %t/
# RUN: %tilec compile %t/sibling_package.py --emit=ir | FileCheck %s
# CHECK: B[i * 2 + j] = T.Cast("int32", B_packed[i] >> T.Cast("int8", j * 4) & T.int8(15)) * 2
# RUN: %tilec run %t/sibling_package.py --device cpu --save-inputs %t/in --save-outputs %t/out | FileCheck --check-prefix=CPU %s
# CPU: output B: int32[64]
# RUN: python3 %S/Inputs/npy_nibbles.py %t/in/B_packed.npy %t/out/B.npy 2 | FileCheck --check-prefix=NPY %s
# NPY: ok 64
# A relative import in the compiled file itself has no package to start from:
# RUN: not %tilec compile %t/sibling_package.py --emit=ir -D relative=True 2>&1 | FileCheck --check-prefix=REL %s
# REL: sibling_package.py:[[@LINE+12]]:{{[0-9]+}}: error: cannot load `.nowhere` from `__main__`: a relative import needs a package [ImportFailed]
#
# tileplay: kernel=unpack_nibbles
import tilelang
import tilelang.language as T

from unpack import SCALE, packed_to_unsigned


@tilelang.jit(out_idx=[-1])
def unpack_nibbles(n=32, relative=False):
    if relative:
        from .nowhere import thing  # noqa: F401
    convert = packed_to_unsigned("int8")

    @T.prim_func
    def main(B_packed: T.Tensor((n,), T.int8), B: T.Tensor((2 * n,), T.int32)):
        with T.Kernel(1, threads=32) as bx:
            for i in T.Parallel(n):
                for j in T.serial(2):
                    B[i * 2 + j] = convert(4, B_packed[i], j, dtype=T.int32) * SCALE

    return main
