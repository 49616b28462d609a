# A file written for AMD GPUs (a HIP jit target; or one importing tilelang.rocm) is counted apart
# with `needs: AMD gfx`, as sm_100 kernels are.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1], target="hip -mcpu=gfx942")
def hip_copy(n):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float16), B: T.Tensor((n,), T.float16)):
        with T.Kernel(1) as bx:
            for i in T.Parallel(n):
                B[i] = A[i]

    return main


if __name__ == "__main__":
    hip_copy(1024)
