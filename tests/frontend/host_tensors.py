# Torch tensors host code makes are known to the kernel evaluator by shape and dtype: a module-
# level `A = torch.rand(m, k, dtype=torch.float16) * 2 - 1` sizes the kernel through `A.shape`
# (the stream-K example), a tensor's presence sets a flag (`counts is not None`), `*_like` keeps
# the shape; their values stay host code (a located error where the kernel would need one).
# RUN: %tilec compile %s --emit ir | FileCheck %s
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# RUN: %tilec compile %s --arch sm_80 --emit ptx -o %t.ptx
# RUN: %tilec compile %s --arch sm_90a --emit ptx -o %t.ptx
# RUN: not %tilec compile %s --emit ir -D read_value=True 2>&1 | FileCheck --check-prefix=VALUE %s
# RUN: not %tilec compile %s --emit ir -D mismatch=True 2>&1 | FileCheck --check-prefix=MISMATCH %s
# CHECK: def scale(A: T.Tensor((48, 32), "float16"), B: T.Tensor((48, 32), "float16"), C: T.Tensor((48,), "int64")):
# CHECK: with T.Kernel(48, threads=32) as bx:
# CHECK: B[bx, j] = A[bx, j] * T.float16(3.0) + T.Cast("float16", C[bx])
# CPU: output B: float16[48, 32]
# VALUE: host_tensors.py:[[@LINE+20]]:{{[0-9]+}}: error: {{.*}}torch.rand(...).sum{{.*}} is not supported inside a kernel; it is host code the kernel evaluator does not run [UnsupportedConstruct]
# MISMATCH: host_tensors.py:[[@LINE+21]]:{{[0-9]+}}: error: unsupported operand types for `+`: {{.*}}
#
# tileplay: kernel=scale
import tilelang
import tilelang.language as T
import torch

m, k = 48, 32
A = torch.rand(m, k, device="cuda", dtype=torch.float16) * 2 - 1
M, K = A.shape
counts = torch.randint(1, 4, (M,), device="cuda")
like = torch.zeros_like(A)


@tilelang.jit(out_idx=[1])
def scale(read_value=False, mismatch=False):
    factor = 3 if counts is not None and like.shape == (M, K) and like.ndim == 2 else 1
    dtype = A.dtype
    if read_value:
        factor = A.sum()
    if mismatch:
        factor = A + counts

    @T.prim_func
    def main(A: T.Tensor((M, K), dtype), B: T.Tensor((M, K), dtype), C: T.Tensor((M,), counts.dtype)):
        with T.Kernel(M, threads=32) as bx:
            for j in T.Parallel(K):
                B[bx, j] = A[bx, j] * T.cast(factor, dtype) + T.cast(C[bx], dtype)

    return main
