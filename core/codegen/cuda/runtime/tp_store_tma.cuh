// TMA stores (sm_90): T.copy(accumulator fragment -> global tile) written by the
// tensor memory accelerator instead of one st.global per register pair. Each warpgroup owns 64
// rows of the tile per m64 block (the wgmma accumulator layouts: AccLayout with WARPS_M a
// multiple of 4, interleaved when a warpgroup has several blocks); it converts them one
// 64-row x 128-byte panel at a time into a staging buffer of its own with the 128-byte swizzle
// (a warp's 4- or 8-byte writes then hit all 32 banks) and one of its threads stores the panel
// with cp.async.bulk.tensor. Two buffers per warpgroup: panel n waits only for the store of
// panel n - 2 to have read its buffer, so the bulk stores drain while the next panel is
// converted. The tensor map clips rows and columns past the tensor's edges, so edge tiles need
// no guards. Named barrier 8 + warpgroup keeps a warpgroup's threads together without
// stopping the others (0 is __syncthreads, 1 the consumers', 2-5 their ping-pong turns).
// T.copy(shared tile -> global tile) is tile_store_tma: the tile as it is, one thread storing.
// NVRTC-safe: no standard library headers; bodies compile to __trap() below sm_90.
#pragma once

#include "tp_cluster.cuh"
#include "tp_copy.cuh"
#include "tp_layout.cuh"

namespace tp {

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define TP_STORE_SM90(...) __VA_ARGS__
#else
#define TP_STORE_SM90(...) __trap();
#endif

// Box store of `map` at element coordinates c[0] (innermost) .. c[R-1] from shared `src`, in
// the bulk-group form (commit, then wait before reusing `src`).
template <int R>
__device__ __forceinline__ void tma_store(const TmaDesc* map, const void* src, const int (&c)[R]) {
    const unsigned long long m = reinterpret_cast<unsigned long long>(map);
    const unsigned s = tma_smem_addr(src);
    if constexpr (R == 1) {
        TP_STORE_SM90(asm volatile("cp.async.bulk.tensor.1d.global.shared::cta.bulk_group [%0, {%2}], [%1];" ::"l"(m), "r"(s), "r"(c[0])
                                   : "memory");)
    } else if constexpr (R == 2) {
        TP_STORE_SM90(asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];" ::"l"(m), "r"(s),
                                   "r"(c[0]), "r"(c[1])
                                   : "memory");)
    } else if constexpr (R == 3) {
        TP_STORE_SM90(asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(m), "r"(s),
                                   "r"(c[0]), "r"(c[1]), "r"(c[2])
                                   : "memory");)
    } else if constexpr (R == 4) {
        TP_STORE_SM90(asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];" ::"l"(m),
                                   "r"(s), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])
                                   : "memory");)
    } else {
        static_assert(R == 5, "TMA stores tensors of rank 1 to 5");
        TP_STORE_SM90(asm volatile("cp.async.bulk.tensor.5d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5, %6}], [%1];" ::"l"(m),
                                   "r"(s), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4])
                                   : "memory");)
    }
}

// Bytes of shared staging frag_store_tma needs per warpgroup: two 64-row x 128-byte panels.
constexpr int kStoreStageBytes = 2 * 64 * 128;

// Stores fragment `frag` (layout L, all of the block's threads; tid the thread's index in it)
// to the tile of `map` whose origin is (c0, c1, ..) innermost first; its rows run along
// coordinate ROW_COORD. `stage`: kStoreStageBytes per warpgroup, 1024-byte aligned.
// WAIT_WRITES: the kernel reads the tensor too, so the call returns only once the stores are
// complete in global memory (otherwise only once they have read the staging buffers).
template <class L, class OutT, int R, int ROW_COORD, bool WAIT_WRITES = false, class FragT>
__device__ __forceinline__ void frag_store_tma(const FragT* frag, unsigned char* stage, const TmaDesc* map, int tid, int c0, int c1 = 0,
                                               int c2 = 0, int c3 = 0, int c4 = 0) {
    constexpr int kElem = static_cast<int>(sizeof(OutT));
    constexpr int P = 128 / kElem;  // columns of a panel
    static_assert(kElem == 2 || kElem == 4, "frag_store_tma writes 16- or 32-bit elements");
    static_assert(L::kWarpsM % 4 == 0 && (L::MT == 1 || L::kInterleave), "frag_store_tma: a wgmma accumulator layout");
    static_assert(L::WN % P == 0, "frag_store_tma: whole 128-byte panels per warpgroup");
    const int warp = tid / 32, wg = tid / 128, t = tid % 128;
#ifdef TP_CONSUMER_GROUPS
    const int bar = 8 + static_cast<int>(threadIdx.x) / 128;  // tid counts within a consumer group
#else
    const int bar = 8 + wg;
#endif
    const int lead = warp & ~3;  // the warpgroup's first warp: its rows start the 64-row block
    const int col0 = L::warp_n(warp) * L::WN;
    unsigned char* bufs = stage + wg * kStoreStageBytes;
    const int origin[5] = {c0, c1, c2, c3, c4};
#pragma unroll
    for (int mt = 0; mt < L::MT; ++mt) {
        const int row0 = L::tile_row(lead, mt);
#pragma unroll
        for (int p = 0; p < L::WN / P; ++p) {
            unsigned char* buf = bufs + ((mt * (L::WN / P) + p) % 2) * (64 * 128);
            if (t == 0) tma_store_wait_read<1>();  // the store that last read `buf` is done
            named_barrier_sync(bar, 128);
#pragma unroll
            for (int i = mt * L::NT * 4; i < (mt + 1) * L::NT * 4; i += 2) {
                if (((i / 4) % L::NT) * 8 / P != p) continue;  // another panel's registers
                const int r = L::row(tid, i) - row0;
                const int cb = (L::col(tid, i) - col0 - p * P) * kElem;
                unsigned char* dst = buf + r * 128 + (((cb / 16) ^ (r % 8)) * 16) + cb % 16;
                const OutT v0 = from_float<OutT>(to_float(frag[i])), v1 = from_float<OutT>(to_float(frag[i + 1]));
                if constexpr (kElem == 2) *reinterpret_cast<unsigned*>(dst) = pack2(v0, v1);
                else *reinterpret_cast<float2*>(dst) = make_float2(v0, v1);
            }
            fence_proxy_async();  // generic writes, read next by the TMA unit
            named_barrier_sync(bar, 128);
            if (t == 0) {
                int c[R];
#pragma unroll
                for (int d = 0; d < R; ++d) c[d] = origin[d];
                c[0] += col0 + p * P;
                c[ROW_COORD] += row0;
                tma_store<R>(map, buf, c);
                tma_store_commit();
            }
        }
    }
    // The block may exit, or reuse the buffers, only once the last stores have read them.
    if (t == 0) {
        if constexpr (WAIT_WRITES) tma_store_wait_all();
        else tma_store_wait_read<0>();
    }
    if constexpr (WAIT_WRITES) named_barrier_sync(bar, 128);
}

// A whole shared tile (written by the block's threads, which fenced their writes for the async
// proxy and met at a barrier before this call) stored with TMA by thread 0: BOXES boxes of
// BOX_COLS columns (128-byte panels of a wider tile, BOX_ELEMS elements apart in shared memory,
// or the tile in one box) at (c0, c1, ..) innermost first. Thread 0 returns once the stores have
// read the tile (WAIT_WRITES: once they are complete in global memory), so the barrier that
// orders a later write of the tile after this call also orders it after the stores' reads.
template <int R, int BOXES, int BOX_COLS, int BOX_ELEMS, bool WAIT_WRITES, class T>
__device__ __forceinline__ void tile_store_tma(const TmaDesc* map, const T* smem, int tid, int c0, int c1 = 0, int c2 = 0, int c3 = 0,
                                               int c4 = 0) {
    if (tid != 0) return;
    const int origin[5] = {c0, c1, c2, c3, c4};
    int c[R];
#pragma unroll
    for (int d = 0; d < R; ++d) c[d] = origin[d];
#pragma unroll
    for (int p = 0; p < BOXES; ++p) {
        c[0] = c0 + p * BOX_COLS;
        tma_store<R>(map, smem + p * BOX_ELEMS, c);
    }
    tma_store_commit();
    if constexpr (WAIT_WRITES) tma_store_wait_all();
    else tma_store_wait_read<0>();
}

}  // namespace tp

#undef TP_STORE_SM90
