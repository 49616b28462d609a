# A factory whose kernel body carries a bug comment: its manifest entry expects an error.
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def shifted(n):
    @T.prim_func
    def main(A: T.Tensor((n,), T.float32), B: T.Tensor((n,), T.float32)):
        with T.Kernel(1, threads=32):
            for i in T.serial(n):
                B[i] = A[i + 1]  # Bug: reads one past A's end

    return main


if __name__ == "__main__":
    shifted(64)
