// A tiled GEMM kernel assembled from the tp_*.cuh templates the way generated code for
// TileLang's example_gemm (+ optional bias/GELU epilogue on the accumulators) will look:
// multi-stage cp.async pipeline (or register staging), swizzled shared tiles, gemm_ss per
// K tile, block rasterization, predicated boundary tiles. C = A * B (+ bias, GELU).
#pragma once

#include "tp_copy.cuh"
#include "tp_gemm.cuh"
#include "tp_layout.cuh"

enum class Epilogue : int { None = 0, BiasGelu = 1 };

template <int BM, int BN, int BK, int STAGES, int THREADS, tp::WarpPolicy POLICY, bool TA, bool TB, class T,
          Epilogue EPI = Epilogue::None, int PANEL = 8, bool REG_STAGED = false, bool DIV = false>
struct GemmConfig {
    static constexpr tp::WarpGrid kGrid = tp::warp_partition(BM, BN, THREADS / 32, POLICY);
    static_assert(kGrid.m > 0, "no valid warp partition");
    using L = tp::AccLayout<BM, BN, kGrid.m, kGrid.n>;
    static constexpr int kStageA = BM * BK;
    static constexpr int kStageB = BK * BN;
    static constexpr int kSmemBytes = STAGES * (kStageA + kStageB) * 2;
    static_assert(STAGES >= 2, "the pipeline needs at least two stages");
};

template <class Cfg, int BM, int BN, int BK, int STAGES, int THREADS, bool TA, bool TB, bool DIV, class T>
__device__ __forceinline__ void load_stage(T* As, T* Bs, const T* A, const T* B, int M, int N, int K, int m0,
                                           int n0, int kt, int tid) {
    const int k0 = kt * BK;
    if constexpr (!TA) {  // A is [M][K]
        tp::copy_g2s<BM, BK, THREADS, T, true, DIV>(As, A + (long long)m0 * K + k0, K, M - m0, K - k0, tid);
    } else {  // A is [K][M]
        tp::copy_g2s<BK, BM, THREADS, T, true, DIV>(As, A + (long long)k0 * M + m0, M, K - k0, M - m0, tid);
    }
    if constexpr (!TB) {  // B is [K][N]
        tp::copy_g2s<BK, BN, THREADS, T, true, DIV>(Bs, B + (long long)k0 * N + n0, N, K - k0, N - n0, tid);
    } else {  // B is [N][K]
        tp::copy_g2s<BN, BK, THREADS, T, true, DIV>(Bs, B + (long long)n0 * K + k0, K, N - n0, K - k0, tid);
    }
}

__device__ __forceinline__ float gelu_erf(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }

template <int BM, int BN, int BK, int STAGES, int THREADS, tp::WarpPolicy POLICY, bool TA, bool TB, class T,
          Epilogue EPI, int PANEL, bool REG_STAGED, bool DIV>
__device__ __forceinline__ void gemm_body(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C,
                                          const T* __restrict__ bias, int M, int N, int K) {
    using Cfg = GemmConfig<BM, BN, BK, STAGES, THREADS, POLICY, TA, TB, T, EPI, PANEL, REG_STAGED, DIV>;
    using L = typename Cfg::L;
    extern __shared__ uint4 smem_raw[];
    T* As = reinterpret_cast<T*>(smem_raw);
    T* Bs = As + STAGES * Cfg::kStageA;
    const int tid = threadIdx.x;
    const tp::BlockXY blk = tp::rasterize(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y, PANEL);
    const int m0 = blk.y * BM, n0 = blk.x * BN;
    const int ktiles = (K + BK - 1) / BK;

    float acc[L::kSize];
    tp::fill(acc, 0.0f);  // T.clear(C_local)

    using Mma = tp::GemmSS<BM, BN, BK, L::kWarpsM, L::kWarpsN, TA, TB, T>;
    const Mma mma;  // ldmatrix offsets computed once, outside the K loop
    if constexpr (!REG_STAGED && Mma::KT % 2 == 0) {
        // T.Pipelined(ktiles, num_stages=STAGES), overlapped across K tiles: STAGES tiles in
        // flight; the barrier sits before the last k16 step so step 0 of the next tile is
        // loaded from shared memory while the last mma of this tile runs.
        const unsigned a0 = tp::smem_addr(As), b0 = tp::smem_addr(Bs);
#pragma unroll
        for (int s = 0; s < STAGES; ++s) {
            if (s < ktiles)
                load_stage<Cfg, BM, BN, BK, STAGES, THREADS, TA, TB, DIV>(As + s * Cfg::kStageA, Bs + s * Cfg::kStageB, A, B,
                                                                         M, N, K, m0, n0, s, tid);
            tp::cp_async_commit();  // commit even when empty so group counting stays uniform
        }
        tp::cp_async_wait<STAGES - 1>();
        __syncthreads();
        typename Mma::Frags f[2];
        mma.load(f[0], a0, b0, 0);
        int stage = 0;
        for (int kt = 0; kt < ktiles; ++kt) {
            const unsigned a_cur = a0 + 2u * stage * Cfg::kStageA, b_cur = b0 + 2u * stage * Cfg::kStageB;
#pragma unroll
            for (int kk = 0; kk < Mma::KT; ++kk) {
                if (kk + 1 < Mma::KT) {
                    mma.load(f[(kk + 1) & 1], a_cur, b_cur, kk + 1);
                } else {
                    tp::cp_async_wait<STAGES - 2>();
                    __syncthreads();  // tile kt+1 visible; every ldmatrix of stage `stage` issued
                    if (kt + STAGES < ktiles)
                        load_stage<Cfg, BM, BN, BK, STAGES, THREADS, TA, TB, DIV>(
                            As + stage * Cfg::kStageA, Bs + stage * Cfg::kStageB, A, B, M, N, K, m0, n0, kt + STAGES, tid);
                    tp::cp_async_commit();
                    const int next = stage + 1 == STAGES ? 0 : stage + 1;
                    if (kt + 1 < ktiles) mma.load(f[0], a0 + 2u * next * Cfg::kStageA, b0 + 2u * next * Cfg::kStageB, 0);
                }
                Mma::mma(acc, f[kk & 1]);
            }
            stage = stage + 1 == STAGES ? 0 : stage + 1;
        }
    } else if constexpr (!REG_STAGED) {
        // Same pipeline without the cross-tile overlap (odd number of k16 steps per tile).
#pragma unroll
        for (int s = 0; s < STAGES - 1; ++s) {
            if (s < ktiles)
                load_stage<Cfg, BM, BN, BK, STAGES, THREADS, TA, TB, DIV>(As + s * Cfg::kStageA, Bs + s * Cfg::kStageB, A, B,
                                                                         M, N, K, m0, n0, s, tid);
            tp::cp_async_commit();
        }
        int read_stage = 0, write_stage = STAGES - 1;  // rotating, avoids kt % STAGES
        for (int kt = 0; kt < ktiles; ++kt) {
            tp::cp_async_wait<STAGES - 2>();
            __syncthreads();  // tile kt visible to all; the stage read last iteration is free
            const int nk = kt + STAGES - 1;
            if (nk < ktiles)
                load_stage<Cfg, BM, BN, BK, STAGES, THREADS, TA, TB, DIV>(As + write_stage * Cfg::kStageA,
                                                                         Bs + write_stage * Cfg::kStageB, A, B, M, N, K,
                                                                         m0, n0, nk, tid);
            tp::cp_async_commit();
            mma(As + read_stage * Cfg::kStageA, Bs + read_stage * Cfg::kStageB, acc);
            read_stage = read_stage + 1 == STAGES ? 0 : read_stage + 1;
            write_stage = write_stage + 1 == STAGES ? 0 : write_stage + 1;
        }
    } else {
        // sm_75 style: two shared buffers, the next tile staged through registers while the
        // Tensor Cores work on the current one.
        tp::RegStagedCopy<TA ? BK : BM, TA ? BM : BK, THREADS, T> ra;
        tp::RegStagedCopy<TB ? BN : BK, TB ? BK : BN, THREADS, T> rb;
        auto load_regs = [&](int kt) {
            const int k0 = kt * BK;
            if constexpr (!TA) ra.load(A + (long long)m0 * K + k0, K, M - m0, K - k0, tid);
            else ra.load(A + (long long)k0 * M + m0, M, K - k0, M - m0, tid);
            if constexpr (!TB) rb.load(B + (long long)k0 * N + n0, N, K - k0, N - n0, tid);
            else rb.load(B + (long long)n0 * K + k0, K, N - n0, K - k0, tid);
        };
        if (ktiles > 0) {
            load_regs(0);
            ra.store(As, tid);
            rb.store(Bs, tid);
        }
        __syncthreads();
        for (int kt = 0; kt < ktiles; ++kt) {
            const int cs = kt & 1;
            if (kt + 1 < ktiles) load_regs(kt + 1);
            tp::gemm_ss<BM, BN, BK, L::kWarpsM, L::kWarpsN, TA, TB, T>(As + cs * Cfg::kStageA, Bs + cs * Cfg::kStageB,
                                                                       acc);
            if (kt + 1 < ktiles) {
                ra.store(As + (cs ^ 1) * Cfg::kStageA, tid);
                rb.store(Bs + (cs ^ 1) * Cfg::kStageB, tid);
            }
            __syncthreads();
        }
    }

    if constexpr (EPI == Epilogue::BiasGelu) {
        // for i, j in T.Parallel(BM, BN): C_local[i, j] = gelu(C_local[i, j] + bias[n0 + j])
        // bias[n0 + j] depends on the column only: loaded once per column slot of the thread.
        float bv[L::kColSlots];
#pragma unroll
        for (int s = 0; s < L::kColSlots; ++s) {
            const int c = n0 + L::slot_col(tid, s);
            bv[s] = (DIV || c < N) ? tp::to_float(bias[c]) : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < L::kSize; ++i) acc[i] = gelu_erf(acc[i] + bv[L::col_slot(i)]);
    }
    // T.copy(C_local, C[by * BM, bx * BN])
    tp::frag_store_global<L, DIV>(acc, C + (long long)m0 * N + n0, N, M - m0, N - n0, tid);
}

template <int BM, int BN, int BK, int STAGES, int THREADS, tp::WarpPolicy POLICY, bool TA, bool TB, class T,
          Epilogue EPI, int PANEL, bool REG_STAGED, bool DIV>
__global__ void __launch_bounds__(THREADS)
    gemm_kernel(const T* __restrict__ A, const T* __restrict__ B, T* __restrict__ C, const T* __restrict__ bias,
                int M, int N, int K) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
    // bf16 mma needs sm_80 (tp::mma_k16 rejects it at compile time); the host never
    // launches these on older devices, the stub only keeps the fat binary building.
    if constexpr (tp::MmaElem<T>::is_bf16) {
        __trap();
    } else
#endif
    {
        gemm_body<BM, BN, BK, STAGES, THREADS, POLICY, TA, TB, T, EPI, PANEL, REG_STAGED, DIV>(A, B, C, bias, M, N, K);
    }
}

// Host launcher: grid, dynamic shared memory opt-in, launch. Returns false when the
// configuration cannot run on this device (too much shared memory).
template <int BM, int BN, int BK, int STAGES, int THREADS, tp::WarpPolicy POLICY, bool TA, bool TB, class T,
          Epilogue EPI = Epilogue::None, int PANEL = 8, bool REG_STAGED = false, bool DIV = false>
struct GemmLauncher {
    using Cfg = GemmConfig<BM, BN, BK, STAGES, THREADS, POLICY, TA, TB, T, EPI, PANEL, REG_STAGED, DIV>;
    static constexpr auto kernel = gemm_kernel<BM, BN, BK, STAGES, THREADS, POLICY, TA, TB, T, EPI, PANEL, REG_STAGED, DIV>;
    static bool prepare() {
        int dev = 0, optin = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
        if (Cfg::kSmemBytes > optin) return false;
        return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::kSmemBytes) ==
               cudaSuccess;
    }
    // DIV kernels are compiled for shapes that divide the tile (as generated code for static
    // shapes is); they must not be launched on others.
    static bool fits(int M, int N, int K) { return !DIV || (M % BM == 0 && N % BN == 0 && K % BK == 0); }
    static void launch(const T* A, const T* B, T* C, const T* bias, int M, int N, int K, cudaStream_t st = 0) {
        dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
        kernel<<<grid, THREADS, Cfg::kSmemBytes, st>>>(A, B, C, bias, M, N, K);
    }
};
