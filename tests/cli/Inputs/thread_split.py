# Each thread of the block owns one element (thread-level TIR): the CPU interpreter runs the
# block as one program where the thread index reads 0 (tests/cli/thread_index_warning.test).
# tileplay: kernel=halve
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def halve(N=64):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=N) as bx:
            tx = T.get_thread_binding()
            B[tx] = A[tx] * 0.5

    return main
