# Lesson 7: threads exchange values through shared memory with no barrier between write and read.
#
# Threads of a block talk through shared memory: here each thread stages one sum of A and B
# in `tile`, and then stores the element its mirror thread (n - 1 - tx, where n is the
# block's element count) staged, the kind of exchange a transpose or a reversal needs. The
# result is C = A + B only if every thread has written its slot before any thread reads its
# mirror's. Nothing makes them wait: thread 0 reads tile[n - 1] before thread n - 1 has
# written it (on the GPU, whenever the two are in different warps).
#
# The compiler puts a `__syncthreads()` between two tile steps that share a buffer, but it
# cannot put one inside a branch on the thread index: a barrier some threads skip hangs the
# block. (Look at the CUDA view: the write and the read sit in one `if (tx < n)` with nothing
# between them.) So the exchange needs its own barrier, reached by every thread, between the
# write and the read. Turn on Run > Check races to see the pair of lines the checker
# reports, fix the kernel, and Run again.
#
# tileplay: lesson Shared memory: a barrier between write and read
# tileplay: hint Turn on Run > Check races and Run: Problems shows the write and the read that race, with the two threads.
# tileplay: hint The read must wait for every thread's write: end the first `if` after the write, call `T.sync_threads()` at the kernel's indentation (every thread reaches it), then read under the same guard again.
# tileplay: kernel=mirror_add
# tileplay: args N=16777000
# tileplay: cpu-args N=1000
# tileplay: bytes 3*4*N
# tileplay: flops N
# tileplay: baseline torch: A + B
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def mirror_add(N, block=128, dtype="float32"):
    @T.prim_func
    def main(
        A: T.Tensor((N,), dtype),
        B: T.Tensor((N,), dtype),
        C: T.Tensor((N,), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            tx = T.get_thread_binding(0)
            tile = T.alloc_shared((block,), dtype)
            base = bx * block
            n = T.min(block, N - base)  # elements of this block: fewer in a last, partial block
            mirror = n - 1 - tx
            if tx < n:
                tile[tx] = A[base + tx] + B[base + tx]
                # TODO(lesson): no thread may read `tile` before all threads have written it
                C[base + mirror] = tile[mirror]

    return main
