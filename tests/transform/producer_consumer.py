# RUN: %tilec compile %s --arch sm_90a --pass-config tp.disable_hoist_operand=true --print-after=producer-consumer --emit lowered 2>&1 | FileCheck %s
# RUN: %tilec compile %s --arch sm_90a --pass-config tp.disable_hoist_operand=true -D stages=3 --print-after=producer-consumer --emit lowered 2>&1 | FileCheck %s --check-prefix=THREE
# producer-consumer on a kernel with a copy before its loop (a one-slot channel, released after
# the loop that reads it) and two in the loop (rings of num_stages slots): the user's 256
# threads become the consumers, a producer warpgroup after them issues every TMA load; each
# copy becomes a wait on its full barrier, the slot is released after the last statement that
# reads the tile (here the wgmma group's wait). Full barriers expect one arrival (the
# producer's, with the transaction bytes), empty ones one per consumer warp. The tensor maps
# name each box (innermost first) and its swizzle; the epilogue's TMA store (fp32 O, 32-column
# panels) made the first.
# CHECK: IR after producer-consumer
# CHECK: # attr tp.tma_maps = O:32x64:128;X:64x128:128;W:64x64:128;Y:64x64:128
# CHECK: # attr tp.ws = producer-consumer
# CHECK: with T.Kernel(4, threads=384) as bx:
# CHECK: X_s = T.alloc_shared((128, 64), "float16")
# CHECK-NEXT: W_s = T.alloc_shared((2, 64, 64), "float16")
# CHECK-NEXT: Y_s = T.alloc_shared((2, 64, 64), "float16")
# CHECK: tp_mbar = T.alloc_shared((10,), "uint64")
# CHECK: T.evaluate(T.tp.sync_call("tp::mbar_init", T.tp.addr_w(tp_mbar[0]), 1))
# CHECK-NEXT: T.evaluate(T.tp.sync_call("tp::mbar_init", T.tp.addr_w(tp_mbar[1]), 8))
# CHECK: T.evaluate(T.__syncthreads())
# CHECK-NEXT: with T.ws_producer(threads=128, regs=24):
# CHECK: if tx == 256:
# CHECK: T.evaluate(T.tp.sync_call("tp::ring_acquire", T.tp.addr_w(tp_mbar[1]), T.tp.addr_w(tp_mbar[0]), tp_X_s_p_phase[], 16384))
# CHECK-NEXT: T.evaluate(T.tp.sync_call("tp::tma_load", T.tp.addr_w(X_s[0, 0]), T.tp.tma_desc(1), T.tp.addr_w(tp_mbar[0]), 0, bx * 128))
# CHECK: for k in T.serial(8):
# CHECK-NEXT: T.evaluate(T.tp.sync_call("tp::ring_acquire", T.tp.addr_w(tp_mbar[4 + tp_W_s_p_slot[]]), T.tp.addr_w(tp_mbar[2 + tp_W_s_p_slot[]]), tp_W_s_p_phase[], 8192))
# CHECK-NEXT: T.evaluate(T.tp.sync_call("tp::tma_load", T.tp.addr_w(W_s[tp_W_s_p_slot[], 0, 0]), T.tp.tma_desc(2), T.tp.addr_w(tp_mbar[2 + tp_W_s_p_slot[]]), 0, k * 64))
# CHECK: with T.ws_consumer(threads=256, regs=240):
# CHECK: T.evaluate(T.tp.sync_call("tp::mbar_wait", T.tp.addr_w(tp_mbar[0]), tp_X_s_c_phase[]))
# CHECK: for k in T.serial(8):
# CHECK-NEXT: T.evaluate(T.tp.sync_call("tp::mbar_wait", T.tp.addr_w(tp_mbar[2 + tp_W_s_c_slot[]]), tp_W_s_c_phase[]))
# CHECK: T.evaluate(T.tp.async_call("tp::gemm_wgmma_ss<128, 64, 64, 8, 1, false, true, half_t, true>", T.tp.addr_r(X_s[0, 0]), T.tp.addr_r(W_s[tp_W_s_c_slot[], 0, 0]), T.tp.addr_w(s[0]), tx, T.tp.proxy_fence(0)))
# CHECK: T.evaluate(T.tp.async_wait(0, T.tp.addr_w(s[0]), T.tp.addr_r(W_s[tp_W_s_c_slot[], 0, 0]), T.tp.addr_r(X_s[0, 0])))
# CHECK-NEXT: T.evaluate(T.tp.sync_call("tp::ring_release", T.tp.addr_w(tp_mbar[4 + tp_W_s_c_slot[]])))
# X's one slot goes back after the loop that reads it.
# CHECK: T.evaluate(T.tp.sync_call("tp::ring_release", T.tp.addr_w(tp_mbar[1])))
# CHECK-NEXT: tp_X_s_c_phase[] = tp_X_s_c_phase[] ^ 1
# THREE: W_s = T.alloc_shared((3, 64, 64), "float16")
# THREE: tp_mbar = T.alloc_shared((14,), "uint64")
import tilelang
import tilelang.language as T


# out[i, :] = sum over k of (x[i, :] . w_k) * y_k, the sum of per-tile products in fp32: a
# loop that reads a tile copied before it (X) and two copied inside it (W, Y).
@tilelang.jit(out_idx=[-1])
def chained(M=512, K=512, D=64, rows=128, block=64, stages=2):
    @T.prim_func
    def main(X: T.Tensor((M, D), "float16"), W: T.Tensor((K, D), "float16"), Y: T.Tensor((K, D), "float16"),
             O: T.Tensor((M, D), "float32")):
        with T.Kernel(T.ceildiv(M, rows), threads=256) as bx:
            X_s = T.alloc_shared((rows, D), "float16")
            W_s = T.alloc_shared((block, D), "float16")
            Y_s = T.alloc_shared((block, D), "float16")
            s = T.alloc_fragment((rows, block), "float32")
            p = T.alloc_fragment((rows, block), "float16")
            acc = T.alloc_fragment((rows, D), "float32")
            T.copy(X[bx * rows, 0], X_s)
            T.clear(acc)
            for k in T.Pipelined(T.ceildiv(K, block), num_stages=stages):
                T.copy(W[k * block, 0], W_s)
                T.copy(Y[k * block, 0], Y_s)
                T.clear(s)
                T.gemm(X_s, W_s, s, transpose_B=True)
                T.copy(s, p)
                T.gemm(p, Y_s, acc)
            T.copy(acc, O[bx * rows, 0])
    return main
