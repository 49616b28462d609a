# T.reinterpret and tvm.tirx.reinterpret: the fp4 (e2m1) -> fp16 dequantization idiom builds the
# half's bits in a uint16 and reads them as float16; the CUDA is a same-width bit cast whose
# source type is spelled out (C++ widens 16-bit integer arithmetic to int), and the packed uint8
# tile is copied into shared memory by tp::copy_g2s like any other.
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: tp::copy_g2s<64, 32, 128, unsigned char
# CHECK: tp::reinterpret<half_t, unsigned short>(
# CHECK: tp::reinterpret<signed char, unsigned char>(
# CPU: output C: float16[128, 64]
#
# tileplay: kernel=fp4_to_f16
import tilelang
import tilelang.language as T
from tvm import tirx


def e2m1_to_f16(val, pos):
    f4 = (val >> (pos.astype(T.uint16) * tirx.const(4, T.uint16))) & tirx.const(15, T.uint16)
    s = f4 >> tirx.const(3, T.uint16)
    e = ((f4 & tirx.const(6, T.uint16)) >> tirx.const(1, T.uint16)) + tirx.const(14, T.uint16)
    m = f4 & tirx.const(1, T.uint16)
    return tirx.reinterpret(T.float16, (((e | (s << tirx.const(5, T.uint16))) << tirx.const(10, T.uint16)) | (m << tirx.const(9, T.uint16))).astype(T.uint16))


@tilelang.jit(out_idx=[-2, -1])
def fp4_to_f16(N=128, K=64, block_N=64):
    @T.prim_func
    def main(B: T.Tensor((N, K // 2), "uint8"), C: T.Tensor((N, K), "float16"), S: T.Tensor((N, K // 2), "int8")):
        with T.Kernel(T.ceildiv(N, block_N), threads=128) as bx:
            B_shared = T.alloc_shared((block_N, K // 2), "uint8")
            C_local = T.alloc_fragment((block_N, K), "float16")
            T.copy(B[bx * block_N, 0], B_shared)
            for i, j in T.Parallel(block_N, K):
                C_local[i, j] = e2m1_to_f16(B_shared[i, j // 2], j % 2)
            T.copy(C_local, C[bx * block_N, 0])
            for i, j in T.Parallel(block_N, K // 2):
                S[bx * block_N + i, j] = T.reinterpret(B_shared[i, j] << tirx.const(4, T.uint8), T.int8)

    return main
