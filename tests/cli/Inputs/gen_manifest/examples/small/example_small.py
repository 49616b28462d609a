# The small size (scripts/conformance/small_size.py): topk is a problem size and shrinks with the
# sequence length it divides (2048 and 4096 -> 256 and 256); a file's own assertion on its sizes
# (`heads % 8 == 0`) refuses the shrunk heads (1), which the generator, given tilec, grows back
# until tracing accepts it (8).
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def gather_rows(seq_len, heads, topk, dim=32):
    assert heads % 8 == 0, "heads must be a multiple of 8"

    @T.prim_func
    def main(A: T.Tensor((seq_len, heads, dim), T.float16), B: T.Tensor((topk, heads, dim), T.float16)):
        with T.Kernel(topk, heads) as (bx, by):
            for d in T.Parallel(dim):
                B[bx, by, d] = A[bx, by, d]

    return main


if __name__ == "__main__":
    gather_rows(4096, 16, 2048)
