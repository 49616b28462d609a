# lower_roles: `with T.ws(i)` roles run on the whole block in program order; each role's
# mbarrier arrivals are guarded by its warp groups' threads (the arrive counts are per role
# thread), waits stay for every thread, and a T.Pipelined loop whose roles synchronise its
# stages runs as written. Each role and such loop says so in a remark. The copies complete
# before the statement after them, so an expect_tx has no bytes to announce (nothing else
# would ever complete them) and emits nothing, on sm_80 as on sm_90a.
# RUN: %tilec compile %s --print-after=lower-roles --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_90a --remarks --emit ptx -o /dev/null 2>&1 | FileCheck --check-prefix=REMARK %s
# RUN: %tilec compile %s --arch sm_90a --emit cuda --no-lineinfo -D tx_bytes=256 | FileCheck --check-prefix=TX %s
# RUN: %tilec compile %s --arch sm_80 --emit ptx -D tx_bytes=256 > /dev/null
# RUN: %tilec run %s --device cpu -D tx_bytes=256 | FileCheck --check-prefix=CPU %s
# RUN: not %tilec compile %s --emit cuda -D thread_code=True 2>&1 | FileCheck --check-prefix=THREAD %s
# CHECK: after lower-roles
# CHECK: for ko in T.serial(4):
# CHECK-NEXT: T.mbarrier_wait_parity(done[0], (ko + 1) % 2)
# CHECK-NEXT: T.copy(A[ko * 64:ko * 64 + 64], tile[0:64])
# CHECK-NEXT: if tx >= 0 and tx < 128:
# CHECK-NEXT: T.mbarrier_arrive(ready[0])
# CHECK: T.mbarrier_wait_parity(ready[0], ko % 2)
# CHECK: if tx >= 128 and tx < 256:
# CHECK-NEXT: T.mbarrier_arrive(done[0])
# REMARK: lower_roles.py:[[@LINE+23]]:{{[0-9]+}}: remark: warp specialisation of this `T.ws` role not used: its tile ops run on all the block's threads in program order, its mbarrier arrivals on its own warp groups only; the kernel computes the same, without overlapping the roles [FastPathNotTaken]
# REMARK: lower_roles.py:[[@LINE+28]]:{{[0-9]+}}: remark: warp specialisation of this `T.ws` role not used: its tile ops run on all the block's threads in program order, its mbarrier arrivals on its own warp groups only; the kernel computes the same, without overlapping the roles [FastPathNotTaken]
# REMARK: lower_roles.py:[[@LINE+20]]:{{[0-9]+}}: remark: the software pipeline of this T.Pipelined loop not used: its `T.ws` roles synchronise the stages through mbarriers; the loop runs as written [FastPathNotTaken]
# TX: tp::user_mbar_arrive(&ready[0]);
# TX-NEXT: }
# TX-NEXT: // mbarrier_expect_tx: the copies complete before the statement after them
# CPU: output B: float32[256]
# THREAD: lower_roles.py:[[@LINE+22]]:{{[0-9]+}}: error: `T.ws role that reads the thread index (roles run on the whole block here)` is not supported by the CUDA code generator yet [NotYetLowered]
#
# tileplay: kernel=staged
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def staged(N=256, tx_bytes=0, thread_code=False):
    @T.prim_func
    def main(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=256) as bx:
            tile = T.alloc_shared((64,), "float32")
            ready = T.alloc_barrier(128)
            done = T.alloc_barrier(128)
            for ko in T.Pipelined(N // 64, num_stages=2):
                with T.ws(0):
                    T.barrier_wait(done, (ko + 1) % 2)
                    T.copy(A[ko * 64 : (ko + 1) * 64], tile)
                    T.barrier_arrive(ready)
                    if tx_bytes:
                        T.mbarrier_expect_tx(ready, tx_bytes)
                with T.ws(1):
                    T.barrier_wait(ready, ko % 2)
                    for i in T.Parallel(64):
                        B[ko * 64 + i] = tile[i] + 1.0
                    T.barrier_arrive(done)
                    if thread_code:
                        B[T.get_thread_binding() - 128] = tile[0]

    return main
