# T.sync_threads(barrier_id, arrive_count): a named barrier over the threads that reach it, here
# the first 128 of 256 inside `if tx < 128` (a __syncthreads there would wait for threads that
# never come). CUDA's bar.sync with the id and count; barrier placement around the branch is
# left to insert_syncs as before.
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 | FileCheck --check-prefix=PTX %s
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# CHECK: if ((tx < 128)) {
# CHECK: tp::named_barrier(3, 128);
# PTX: bar.sync
#
# tileplay: kernel=main
import tilelang.language as T


@T.prim_func
def main(A: T.Tensor((256,), "float32"), B: T.Tensor((256,), "float32")):
    with T.Kernel(1, threads=256) as bx:
        tx = T.get_thread_binding()
        s = T.alloc_shared((256,), "float32")
        s[tx] = A[tx]
        T.sync_threads()
        if tx < 128:
            s[tx] = s[tx] + s[tx + 128]
            T.sync_threads(3, 128)
            if tx < 64:
                s[tx] = s[tx] + s[tx + 64]
        T.sync_threads()
        B[tx] = s[tx]
