# (The row guard `bx < 64` is gone: bx runs over the 64 blocks of the grid, so simplify proves it.)
# Striped fragments keep the per-element form (runs of 1: element e in thread e % T) when runs
# do not fit: rows of 1001 (no whole run), a fragment that is also copied to shared memory, an
# integer tensor. Rows of 1000 keep runs of 8 in one partial round (125 of 256 threads), their
# reductions and loops guarded at the row's end. With runs that fit but a column start or row length that
# is no multiple of 8 the layout has runs but the copy stays per element (no 16-byte
# alignment); a fp32 output with fp16 input takes runs of 8 and two 16-byte stores per run.
# RUN: %tilec compile %samples/softmax.py --emit cuda --no-lineinfo -D M=64 -D N=1001 | FileCheck %s --check-prefix=N1001
# RUN: %tilec compile %samples/softmax.py --emit cuda --no-lineinfo -D M=64 -D N=1000 | FileCheck %s --check-prefix=N1000
# RUN: %tilec compile %s --emit cuda --no-lineinfo -k shared_too | FileCheck %s --check-prefix=SHARED
# RUN: %tilec compile %s --emit cuda --no-lineinfo -k offset -D col0=4 | FileCheck %s --check-prefix=UNALIGNED
# RUN: %tilec compile %s --emit cuda --no-lineinfo -k offset -D col0=8 -D N=4100 | FileCheck %s --check-prefix=ODDROW
# RUN: %tilec compile %s --emit cuda --no-lineinfo -k offset -D col0=8 | FileCheck %s --check-prefix=ALIGNED
# RUN: %tilec compile %s --emit ptx --no-lineinfo -k widen | FileCheck %s --check-prefix=WIDEN
# N1001-NOT: tp::striped_
# N1001: const int tp_e = ((tp_r * 256) + tx);
# N1001-NEXT: if ((tp_e < 1001)) {
# N1001: tp::reduce_striped<1, 1001, 256, 1, tp::ReduceOp::Max, true>(
# N1001-NOT: tp::striped_
# N1000: float x[8];
# N1000: tp::striped_load_global<1000, 1000, 256, 8, true>(&x[0], &X[(bx * 1000)], 1000, 1, 1000, tx);
# N1000: tp::reduce_striped<1, 1000, 256, 1, tp::ReduceOp::Max, true, 8>(
# N1000: const int tp_e = ((((tp_r / 8) * 2048) + (tx * 8)) + (tp_r % 8));
# N1000-NEXT: if ((tp_e < 1000)) {
# N1000: tp::striped_store_global<1000, 1000, 256, 8, true>(
# SHARED-NOT: tp::striped_
# SHARED: const int tp_e = ((tp_r * 128) + tx);
# SHARED-NOT: tp::striped_
# UNALIGNED-NOT: tp::striped_
# UNALIGNED: const int tp_e = ((((tp_r / 8) * 1024) + (tx * 8)) + (tp_r % 8));
# UNALIGNED-NEXT: x[tp_r] = static_cast<float>(A[((bx * 4096) + (4 + tp_e))]);
# UNALIGNED-NOT: tp::striped_
# ODDROW-NOT: tp::striped_
# ODDROW: const int tp_e = ((((tp_r / 8) * 1024) + (tx * 8)) + (tp_r % 8));
# ODDROW-NEXT: x[tp_r] = static_cast<float>(A[((bx * 4100) + (8 + tp_e))]);
# ODDROW-NOT: tp::striped_
# ALIGNED: tp::striped_load_global<1024, 1024, 128, 8, true>(&x[0], &A[((bx * 4096) + 8)], 4096, 1, 4088, tx);
# ALIGNED: tp::striped_store_global<1024, 1024, 128, 8, true>(&x[0], &B[((bx * 4096) + 8)], 4096, 1, 4088, tx);
# WIDEN-COUNT-1: ld.global.nc.v4.u32
# WIDEN-NOT: ld.global.nc.v4.u32
# WIDEN-COUNT-2: st.global.v4.{{u32|f32}}
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def shared_too(M=64, N=2048):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16")):
        with T.Kernel(M, threads=128) as bx:
            x = T.alloc_fragment((N,), "float32")
            s = T.alloc_shared((N,), "float16")
            T.copy(A[bx, 0], x)
            T.copy(x, s)
            T.copy(s, B[bx, 0])

    return main


@tilelang.jit(out_idx=[-1])
def offset(M=64, N=4096, cols=1024, col0=4):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float16")):
        with T.Kernel(M, threads=128) as bx:
            x = T.alloc_fragment((cols,), "float32")
            T.copy(A[bx, col0], x)
            for j in T.Parallel(cols):
                x[j] = x[j] + 1.0
            T.copy(x, B[bx, col0])

    return main


@tilelang.jit(out_idx=[-1])
def widen(M=64, N=1024):
    @T.prim_func
    def main(A: T.Tensor((M, N), "float16"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(M, threads=128) as bx:
            x = T.alloc_fragment((N,), "float32")
            T.copy(A[bx, 0], x)
            T.copy(x, B[bx, 0])

    return main
