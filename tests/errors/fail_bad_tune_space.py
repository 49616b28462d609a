# RUN: not %tilec tune %s --dry-run --device cpu 2>&1 | FileCheck %s
# CHECK: fail_bad_tune_space.py:[[@LINE+4]]:28: error: invalid tuning space: a config is int (64); each config must be a dict of parameter values [BadTuneSpace]
import tilelang
import tilelang.language as T

@tilelang.autotune(configs=[64, 128])
@tilelang.jit
def k(A, block=64):
    A: T.Tensor((128,), T.float32)
    with T.Kernel(128 // block, threads=block) as bx:
        T.clear(A)
