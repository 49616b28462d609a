# Dtypes as host code uses them (TileLang's quantize helpers): T.dtype(x) is the dtype itself;
# T.int, T.uint, T.short, T.long are int32, uint32, int16, int64; T.int4 is a value to compare
# and key dicts with, refused as an element type (4-bit values need packed storage). TVM's bit
# operations by name (T.shift_left ...) are Python's operators on the same values.
# RUN: %tilec compile %s --emit ir | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: not %tilec compile %s --emit ir -D packed=int4 2>&1 | FileCheck --check-prefix=INT4 %s
# CHECK: def bits(A: T.Tensor((8,), "uint32"), B: T.Tensor((8,), "int32")):
# CHECK: B[tx] = T.Cast("int32", (((A[tx] << T.uint32(2) | T.uint32(1)) ^ T.uint32(3)) & T.uint32(255)) >> T.uint32(1))
# CPU: output B: int32[8] mean=7.25 rms=8.832 min=1 max=17
# INT4: dtype_values.py:[[@LINE+16]]:32: error: `T.int4` is not supported inside a kernel as an element type; 4-bit values need packed storage, which buffers, casts and T.gemm do not have yet (keep two values a byte in int8 or uint8 and unpack them with shifts) [UnsupportedConstruct]
import tilelang
import tilelang.language as T

names = {T.float16: "f16", T.int4: "i4", T.int8: "i8", T.int32: "i32"}


@tilelang.jit(out_idx=[-1])
def bits(N=8, packed="uint"):
    assert T.dtype("int") == T.int32 and T.dtype(T.uint) == T.uint32
    assert T.short == T.int16 and T.long == T.int64
    assert names[T.dtype("int4")] == "i4" and T.int4 != T.int8
    assert T.shift_left(1, 4) == 16 and T.bitwise_and(6, 3) == 2
    packed_dtype = T.dtype(packed)

    @T.prim_func
    def main(A: T.Tensor((N,), packed_dtype), B: T.Tensor((N,), T.int)):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding()
            B[tx] = T.shift_right(T.bitwise_and(T.bitwise_xor(T.bitwise_or(T.shift_left(A[tx], 2), 1), 3), 255), 1)

    return main
