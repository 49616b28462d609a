# RUN: not env TILEPLAY_NVRTC_PATH=/nonexistent/libnvrtc.so %tilec compile %s --emit ptx 2>&1 | FileCheck %s
# TILEPLAY_NVRTC_PATH pins the NVRTC library; a path that does not exist is reported, not a crash.
# CHECK: error: NVRTC is not available: cannot load libnvrtc (tried /nonexistent/libnvrtc.so); install the CUDA toolkit at /usr/local/cuda [NvrtcUnavailable]
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((128,), "float32")):
    with T.Kernel(1, threads=128) as bx:
        for i in T.Parallel(128):
            A[i] = 1.0
