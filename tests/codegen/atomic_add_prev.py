# T.atomic_add(x, v, return_prev=True): the value x held before the add (a slot taken from a
# shared counter). The add happens once where the call stands, through a scalar that keeps the
# previous value; in CUDA, the atomicAdd's own return. The CPU interpreter hands the slots out in
# order, so every element of Out names its own index.
# RUN: %tilec compile %s --emit cuda --arch sm_80 | FileCheck %s
# RUN: %tilec compile %s --emit ptx --arch sm_80 > /dev/null
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: %tilec run %s --device cpu | FileCheck --check-prefix=CPU %s
# CHECK: atomic_prev = tp::atomic_add_prev(&count[0], 1);
# CHECK: Out[((bx * 8) + slot)] = (slot + 100);
# CPU: output Out: int32[16] mean=103.5 rms=103.5 min=100 max=107
#
# tileplay: kernel=slots
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def slots(blocks=2, per_block=8):
    @T.prim_func
    def main(Out: T.Tensor((blocks * per_block,), "int32")):
        with T.Kernel(blocks, threads=32) as bx:
            tx = T.get_thread_binding()
            count = T.alloc_shared((1,), "int32")
            count[0] = 0
            if tx == 0:  # scalar code runs in every thread; one takes the slots
                for k in T.serial(per_block):
                    slot = T.atomic_add(count[0], 1, return_prev=True)
                    Out[bx * per_block + slot] = slot + 100

    return main
