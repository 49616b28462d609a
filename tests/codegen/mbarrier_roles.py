# `with T.ws(i)` roles synchronised by T.alloc_barrier's mbarriers: warp group 0 loads each
# chunk of A into a two-slot shared ring (T.tma_copy completing on the slot's `full` barrier),
# warp group 1 waits for it, writes 2 * A + 1 to B and frees the slot on its `empty` barrier.
# The CUDA initialises each barrier once with its arrive count, guards each role's arrivals by
# its warp group (tile ops run on the whole block in program order, see lower_roles) and waits
# with the sm_80 mbarrier forms; the CPU run gives B = 2 * A + 1 for every element.
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 | FileCheck --check-prefix=PTX %s
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: rm -rf %t && %tilec run %s --device cpu --save-inputs %t --save-outputs %t
# RUN: python3 %S/Inputs/npy_affine.py %t/A.npy %t/B.npy 2 1
# CHECK: tp::user_mbar_init(&bars[0], 128u);
# CHECK: tp::user_mbar_init(&bars[3], 128u);
# CHECK-NEXT: tp::user_mbar_fence_init();
# CHECK: __syncthreads();
# CHECK: tp::user_mbar_wait(&bars[((k % 2) + 2)], static_cast<unsigned>((((k / 2) % 2) ^ 1)));
# CHECK: ring[(((k % 2) * 128) + tx)] =
# CHECK: if ((tx < 128)) {
# CHECK-NEXT: tp::user_mbar_arrive(&bars[(k % 2)]);
# CHECK: tp::user_mbar_wait(&bars[(k % 2)], static_cast<unsigned>(((k / 2) % 2)));
# CHECK: if ((tx >= 128)) {
# CHECK-NEXT: tp::user_mbar_arrive(&bars[((k % 2) + 2)]);
# PTX: mbarrier.init.shared.b64
# PTX: mbarrier.test_wait.parity.shared.b64
# PTX: mbarrier.arrive.shared.b64
#
# tileplay: kernel=relay
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def relay(N=1024, block=128):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=256) as bx:
            ring = T.alloc_shared((2, block), "float32")
            bars = T.alloc_barrier([128] * 4)  # full[0..1], empty[2..3]
            for k in T.serial(N // block):
                with T.ws(0):
                    T.mbarrier_wait_parity(bars[k % 2 + 2], (k // 2) % 2 ^ 1)
                    T.tma_copy(A[k * block : (k + 1) * block], ring[k % 2, :], barrier=bars[k % 2])
                    T.mbarrier_arrive(bars[k % 2])
                with T.ws(1):
                    T.barrier_wait(bars[k % 2], (k // 2) % 2)
                    for i in T.Parallel(block):
                        B[k * block + i] = ring[k % 2, i] * 2.0 + 1.0
                    T.barrier_arrive(bars[k % 2 + 2])

    return main
