// T.copy between global memory and a striped fragment whose runs are VEC elements long
// (tp::striped_elem in tp_layout.cuh): 16-byte accesses (4 or 8 bytes for short runs; a run
// of fp32 may take several; fp8 runs of 8 are one 8-byte access) instead of VEC scalar ones. The fragment is an ELEMS-element row-major tile with COLS columns; its element e is
// global element (e / COLS) * ld + e % COLS from `g` (the tile's origin). The lowering
// (core/transform/striped_copy.cpp) only calls these when COLS, ld and the origin column are
// multiples of VEC and the buffer base is 16-byte aligned, so every run lies in one row and
// starts aligned; a run is then either wholly inside or wholly outside the valid
// rows_valid x cols_valid corner, and the per-element branch below only guards against a
// caller breaking that promise. IN_BOUNDS drops the checks (the tile provably fits).
// Values convert exactly as the scalar copy does: through float unless the types match.
#pragma once

namespace tp {

template <class A, class B>
struct StripedSame {
    static constexpr bool value = false;
};
template <class A>
struct StripedSame<A, A> {
    static constexpr bool value = true;
};

template <class To, class From>
__device__ __forceinline__ To striped_cvt(From v) {
    if constexpr (StripedSame<To, From>::value) {
        return v;
    } else {
        return static_cast<To>(static_cast<float>(v));
    }
}

// One access of WORDS 32-bit words (4, 8 or 16 bytes), unpacked with shifts rather than
// pointer casts so no type punning is involved: 2-byte elements sit low half first (the
// little-endian order of memory), fp32 elements one per word.
template <int WORDS>
struct StripedRaw {
    unsigned w[WORDS];
};

template <int WORDS>
__device__ __forceinline__ StripedRaw<WORDS> striped_ld(const void* p) {
    StripedRaw<WORDS> r;
    if constexpr (WORDS == 4) {
        const uint4 v = *static_cast<const uint4*>(p);
        r.w[0] = v.x, r.w[1] = v.y, r.w[2] = v.z, r.w[3] = v.w;
    } else if constexpr (WORDS == 2) {
        const uint2 v = *static_cast<const uint2*>(p);
        r.w[0] = v.x, r.w[1] = v.y;
    } else {
        static_assert(WORDS == 1, "4, 8 or 16-byte accesses");
        r.w[0] = *static_cast<const unsigned*>(p);
    }
    return r;
}

template <int WORDS>
__device__ __forceinline__ void striped_st(void* p, const StripedRaw<WORDS>& r) {
    if constexpr (WORDS == 4) {
        *static_cast<uint4*>(p) = make_uint4(r.w[0], r.w[1], r.w[2], r.w[3]);
    } else if constexpr (WORDS == 2) {
        *static_cast<uint2*>(p) = make_uint2(r.w[0], r.w[1]);
    } else {
        static_assert(WORDS == 1, "4, 8 or 16-byte accesses");
        *static_cast<unsigned*>(p) = r.w[0];
    }
}

// Element i of a run held in words (G is float, half_t, bfloat16_t or an fp8 type: one byte,
// four to a word, lowest address lowest).
template <class G, int WORDS>
__device__ __forceinline__ G striped_get(const StripedRaw<WORDS>& r, int i) {
    if constexpr (sizeof(G) == 4) {
        return __uint_as_float(r.w[i]);
    } else if constexpr (sizeof(G) == 2) {
        return G::from_bits(static_cast<unsigned short>(r.w[i / 2] >> (16 * (i % 2))));
    } else {
        static_assert(sizeof(G) == 1, "fp32, 16-bit or 8-bit elements");
        G g;
        g.bits = static_cast<unsigned char>(r.w[i / 4] >> (8 * (i % 4)));
        return g;
    }
}

template <class G, int WORDS>
__device__ __forceinline__ void striped_set(StripedRaw<WORDS>& r, int i, G v) {
    if constexpr (sizeof(G) == 4) {
        r.w[i] = __float_as_uint(v);
    } else if constexpr (sizeof(G) == 2) {
        const unsigned bits = v.bits;
        r.w[i / 2] = i % 2 ? (r.w[i / 2] & 0xffffu) | (bits << 16) : (r.w[i / 2] & 0xffff0000u) | bits;
    } else {
        static_assert(sizeof(G) == 1, "fp32, 16-bit or 8-bit elements");
        const int shift = 8 * (i % 4);
        r.w[i / 4] = (r.w[i / 4] & ~(0xffu << shift)) | (static_cast<unsigned>(v.bits) << shift);
    }
}

template <int ELEMS, int COLS, int THREADS, int VEC, bool IN_BOUNDS, class FragT, class G>
__device__ __forceinline__ void striped_load_global(FragT* frag, const G* g, int ld, int rows_valid,
                                                    int cols_valid, int tid) {
    static_assert(ELEMS % VEC == 0 && COLS % VEC == 0, "runs must tile the fragment");
    // A run of more than 16 bytes (fp32 runs of 8) takes several 16-byte accesses.
    constexpr int kBytes = VEC * int(sizeof(G)) < 16 ? VEC * int(sizeof(G)) : 16;
    constexpr int kWords = kBytes / 4, kPer = kBytes / int(sizeof(G));
    constexpr int kRuns = (ELEMS + VEC * THREADS - 1) / (VEC * THREADS);
#pragma unroll
    for (int run = 0; run < kRuns; ++run) {
        const int e = run * (VEC * THREADS) + tid * VEC;  // first element of this thread's run
        if (ELEMS % (VEC * THREADS) != 0 && e >= ELEMS) {  // the last round's runs past the end
#pragma unroll
            for (int i = 0; i < VEC; ++i) frag[run * VEC + i] = FragT(0.0f);
            continue;
        }
        const int r = e / COLS, c = e % COLS;
        const G* p = g + r * ld + c;
        if (IN_BOUNDS || (r < rows_valid && c + VEC <= cols_valid)) {
#pragma unroll
            for (int q = 0; q < VEC; q += kPer) {
                const StripedRaw<kWords> raw = striped_ld<kWords>(p + q);
#pragma unroll
                for (int i = 0; i < kPer; ++i) frag[run * VEC + q + i] = striped_cvt<FragT>(striped_get<G>(raw, i));
            }
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                frag[run * VEC + i] = (r < rows_valid && c + i < cols_valid) ? striped_cvt<FragT>(p[i]) : FragT(0.0f);
        }
    }
}

template <int ELEMS, int COLS, int THREADS, int VEC, bool IN_BOUNDS, class FragT, class G>
__device__ __forceinline__ void striped_store_global(const FragT* frag, G* g, int ld, int rows_valid,
                                                     int cols_valid, int tid) {
    static_assert(ELEMS % VEC == 0 && COLS % VEC == 0, "runs must tile the fragment");
    constexpr int kBytes = VEC * int(sizeof(G)) < 16 ? VEC * int(sizeof(G)) : 16;
    constexpr int kWords = kBytes / 4, kPer = kBytes / int(sizeof(G));
    constexpr int kRuns = (ELEMS + VEC * THREADS - 1) / (VEC * THREADS);
#pragma unroll
    for (int run = 0; run < kRuns; ++run) {
        const int e = run * (VEC * THREADS) + tid * VEC;
        if (ELEMS % (VEC * THREADS) != 0 && e >= ELEMS) continue;  // the last round's runs past the end
        const int r = e / COLS, c = e % COLS;
        G* p = g + r * ld + c;
        if (IN_BOUNDS || (r < rows_valid && c + VEC <= cols_valid)) {
#pragma unroll
            for (int q = 0; q < VEC; q += kPer) {
                StripedRaw<kWords> raw;
#pragma unroll
                for (int i = 0; i < kWords; ++i) raw.w[i] = 0u;
#pragma unroll
                for (int i = 0; i < kPer; ++i) striped_set<G>(raw, i, striped_cvt<G>(frag[run * VEC + q + i]));
                striped_st<kWords>(p + q, raw);
            }
        } else {
#pragma unroll
            for (int i = 0; i < VEC; ++i)
                if (r < rows_valid && c + i < cols_valid) p[i] = striped_cvt<G>(frag[run * VEC + i]);
        }
    }
}

}  // namespace tp
