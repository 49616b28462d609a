# RUN: not %tilec run --device cpu --timeout 0.5 %s 2>&1 | FileCheck %s
# CHECK: fail_interpreter_timeout.py:[[@LINE+9]]:{{[0-9]+}}: error: the kernel did not finish within 0.5 s on the CPU interpreter (still running this loop in block (0, 0, 0)); the run was stopped: check the loop's bounds and exit condition, or raise `--timeout` [InterpreterTimeout]
import tilelang
import tilelang.language as T


@tilelang.jit
def spin(A):
    A: T.Tensor((1,), T.float32)
    with T.Kernel(1, threads=32) as bx:
        for k in T.serial(1 << 40):
            A[0] = A[0] + 1.0
