# T.rng_init / T.rng_rand: each thread's Philox4x32-10 generator on cuRAND's
# curandStatePhilox4_32_10_t layout (TileLang's rand examples compare it with Triton's
# randint4x). Block b seeds with subsequence b and offset 4 b + 1 (a draw that starts inside a
# 4-word Philox block) and stores 9 draws, which crosses into the next counter. The CUDA uses
# tp_rand.cuh's generator declared once per thread; the CPU run is checked against an
# independent Philox (tests/codegen/Inputs/npy_philox.py, itself checked on known answers).
# RUN: %tilec compile %s --emit cuda --arch sm_80 --no-lineinfo | FileCheck %s
# CHECK: #include "tp_rand.cuh"
# CHECK: tp::Philox4x32 tp_rng{};
# CHECK: tp_rng.init(static_cast<unsigned long long>(12345678901LL), static_cast<unsigned long long>(static_cast<long long>(bx)),
# CHECK: A[((bx * 9) + k)] = tp_rng.next();
# RUN: %tilec compile %s --emit ptx --arch sm_90a > /dev/null
# RUN: rm -rf %t && %tilec run %s --device cpu --save-outputs %t
# RUN: python3 %S/Inputs/npy_philox.py %t/A.npy 12345678901
# A block of several threads drawing in block-wide code is refused on the interpreter:
# RUN: not %tilec run %s --device cpu -D threads=2 2>&1 | FileCheck %s --check-prefix=MANY
# MANY: rng.py:29:13: error: `T.rng_init in block-wide code of a block of 2 threads (each thread draws from its own generator)` is not supported by the CPU interpreter code generator yet [NotYetLowered]
#
# tileplay: kernel=draws
import tilelang
import tilelang.language as T


@tilelang.jit(out_idx=[-1])
def draws(blocks=2, n=9, seed=12345678901, threads=1):
    @T.prim_func
    def main(A: T.Tensor((blocks, n), "uint32")):
        with T.Kernel(blocks, threads=threads) as bx:
            T.rng_init(seed, bx, 4 * bx + 1)
            for k in T.serial(n):
                A[bx, k] = T.rng_rand()

    return main
