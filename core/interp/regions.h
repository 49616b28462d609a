// Buffer regions in the interpreter: compiled region expressions, their evaluated form, and
// the element mapping T.copy / T.atomic_add use between a source and a destination region
// (unit dims squeezed; a head index like `A[by * 128, k * 32]` takes the other side's extents).
#pragma once

#include "interp/program.h"

namespace tp::interp {

struct CRegion {
    const ir::BufferNode* buf = nullptr;
    int slot = -1;
    std::vector<CExprP> mins, extents;
};

struct EvRegion {
    int rank = 0;
    int64_t min[kMaxRank] = {};
    int64_t ext[kMaxRank] = {};
};

CRegion compile_region(Program& p, const ir::BufferRegion& r);
EvRegion eval_region(Frame& fr, const CRegion& r);

// Pairs the elements of two regions. `dims` lists, for each iteration dimension, which
// region dim of src and of dst it walks (-1: none). Throws ShapeMismatch when they differ.
struct RegionMap {
    int n = 0;
    int64_t ext[kMaxRank] = {};
    int src_dim[kMaxRank] = {};
    int dst_dim[kMaxRank] = {};
};
RegionMap map_regions(const Frame& fr, Span span, const char* op, const CRegion& src, EvRegion& s,
                      const CRegion& dst, EvRegion& d);

// Calls fn(src_coords, dst_coords) for every paired element, in row-major order.
template <class Fn>
void for_each_pair(const RegionMap& m, const EvRegion& s, const EvRegion& d, Fn&& fn) {
    int64_t si[kMaxRank], di[kMaxRank], k[kMaxRank] = {};
    for (int x = 0; x < s.rank; ++x) si[x] = s.min[x];
    for (int x = 0; x < d.rank; ++x) di[x] = d.min[x];
    for (int x = 0; x < m.n; ++x)
        if (m.ext[x] <= 0) return;
    while (true) {
        fn(si, di);
        int x = m.n - 1;
        for (; x >= 0; --x) {
            if (++k[x] < m.ext[x]) {
                if (m.src_dim[x] >= 0) ++si[m.src_dim[x]];
                if (m.dst_dim[x] >= 0) ++di[m.dst_dim[x]];
                break;
            }
            k[x] = 0;
            if (m.src_dim[x] >= 0) si[m.src_dim[x]] = s.min[m.src_dim[x]];
            if (m.dst_dim[x] >= 0) di[m.dst_dim[x]] = d.min[m.dst_dim[x]];
        }
        if (x < 0) return;
    }
}

// Flat index when every coordinate is inside the view, else -1.
inline int64_t flat_or_neg(const BufView& v, const int64_t* idx) {
    int64_t f = 0;
    for (int x = 0; x < v.rank; ++x) {
        if (idx[x] < 0 || idx[x] >= v.shape[x]) return -1;
        f = f * v.shape[x] + idx[x];
    }
    return f;
}

}  // namespace tp::interp
