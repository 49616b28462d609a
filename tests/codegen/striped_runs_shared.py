# T.Parallel loops over striped fragments move the shared and global buffers they read or write
# along their innermost variable a run at a time: the fragments take runs of 8 (16 bytes of
# bf16), each run is one tp::striped_run_load / striped_run_store (ld/st.shared.v4), and the
# loop body reads and writes the run's registers. A layernorm-style row staged in shared memory
# (TileLang's examples/norm) took 32 two-byte loads a thread per loop before, conflicting 4-way
# once the fragment held runs. The run accesses are one thread's elements: insert_syncs puts
# no barrier inside the run loop. An access that might not happen (under an `if`) or whose
# address a call takes (T.atomic_add's target) stays element by element.
# RUN: %tilec compile %s --emit cuda --no-lineinfo -k staged | FileCheck %s
# RUN: %tilec compile %s --emit ptx -k staged | FileCheck %s --check-prefix=PTX
# RUN: %tilec compile %s --emit cuda --no-lineinfo -k guarded | FileCheck %s --check-prefix=GUARD
# RUN: %tilec run %s --device cpu -k staged | FileCheck %s --check-prefix=CPU
# CHECK: for (int tp_run = 0; tp_run < 4; ++tp_run) {
# CHECK-NEXT: bfloat16_t tp_run_X_s[8];
# CHECK-NOT: __syncthreads
# CHECK: tp::striped_run_load<8, bfloat16_t>(&tp_run_X_s[0], &X_s[tp_e]);
# CHECK: x[((tp_run * 8) + tp_q)] = static_cast<float>(tp_run_X_s[tp_q]);
# CHECK: tp::striped_run_load<8, bfloat16_t>(&tp_run_W_s[0], &W_s[tp_e_1]);
# CHECK-NOT: __syncthreads
# CHECK: tp::striped_run_store<8, bfloat16_t>(&X_s[tp_e_2], &tp_run_X_s_1[0]);
# PTX: ld.shared.v4.u32
# PTX-NOT: ld.shared.u16
# PTX: st.shared.v4.u32
# PTX-NOT: st.shared.u16
# GUARD-NOT: tp::striped_run_
# CPU: output Y: bfloat16[8, 8192]
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[2])
def staged(M=8, N=8192):
    @T.prim_func
    def main(X: T.Tensor((M, N), "bfloat16"), W: T.Tensor((N,), "bfloat16"), Y: T.Tensor((M, N), "bfloat16")):
        with T.Kernel(M, threads=256) as bx:
            X_s = T.alloc_shared((1, N), "bfloat16")
            W_s = T.alloc_shared((N,), "bfloat16")
            x = T.alloc_fragment((1, N), "float32")
            s = T.alloc_fragment((1,), "float32")
            T.copy(X[bx, 0], X_s)
            T.copy(W, W_s)
            for i, j in T.Parallel(1, N):
                x[i, j] = T.Cast("float32", X_s[i, j])
            T.reduce_sum(x, s, dim=1)
            for i, j in T.Parallel(1, N):
                X_s[i, j] = T.Cast("bfloat16", (x[i, j] - s[i] / N) * T.Cast("float32", W_s[j]))
            T.copy(X_s, Y[bx, 0])

    return main


@tilelang.jit(out_idx=[1])
def guarded(M=8, N=8192, valid=8000):
    @T.prim_func
    def main(X: T.Tensor((M, N), "bfloat16"), Y: T.Tensor((M, N), "bfloat16")):
        with T.Kernel(M, threads=256) as bx:
            X_s = T.alloc_shared((1, N), "bfloat16")
            x = T.alloc_fragment((1, N), "float32")
            T.copy(X[bx, 0], X_s)
            for i, j in T.Parallel(1, N):
                x[i, j] = 0.0
                if j < valid:
                    x[i, j] = T.Cast("float32", X_s[i, j])
            T.copy(x, Y[bx, 0])

    return main
