// Region compilation, evaluation and src/dst element pairing for the interpreter's tile ops.
#include "interp/regions.h"

#include <sstream>

namespace tp::interp {

CRegion compile_region(Program& p, const ir::BufferRegion& r) {
    CRegion c;
    c.buf = r.buffer.get();
    c.slot = p.buffer_slot(r.buffer);
    TP_ICHECK(r.region.size() <= static_cast<size_t>(kMaxRank), "buffer rank above 8");
    for (const auto& rg : r.region) {
        c.mins.push_back(compile_expr(p, rg.min));
        c.extents.push_back(compile_expr(p, rg.extent));
    }
    return c;
}

EvRegion eval_region(Frame& fr, const CRegion& r) {
    EvRegion e;
    e.rank = static_cast<int>(r.mins.size());
    for (int d = 0; d < e.rank; ++d) {
        e.min[d] = r.mins[static_cast<size_t>(d)]->i(fr);
        e.ext[d] = r.extents[static_cast<size_t>(d)]->i(fr);
    }
    return e;
}

namespace {

std::string extents_text(const EvRegion& r) {
    std::ostringstream os;
    os << '[';
    for (int d = 0; d < r.rank; ++d) os << (d ? ", " : "") << r.ext[d];
    os << ']';
    return os.str();
}

int64_t volume(const EvRegion& r) {
    int64_t v = 1;
    for (int d = 0; d < r.rank; ++d) v *= r.ext[d];
    return v;
}

}  // namespace

RegionMap map_regions(const Frame& fr, Span span, const char* op, const CRegion& src, EvRegion& s, const CRegion& dst,
                      EvRegion& d) {
    std::vector<int> sn, dn;
    for (int x = 0; x < s.rank; ++x)
        if (s.ext[x] != 1) sn.push_back(x);
    for (int x = 0; x < d.rank; ++x)
        if (d.ext[x] != 1) dn.push_back(x);
    RegionMap m;
    auto same = [&] {
        if (sn.size() != dn.size()) return false;
        for (size_t k = 0; k < sn.size(); ++k)
            if (s.ext[sn[k]] != d.ext[dn[k]]) return false;
        return true;
    };
    if (!same()) {
        // A head index (every extent 1) spans the other side's extents over its trailing dims.
        if (volume(s) == 1 && static_cast<int>(dn.size()) <= s.rank) {
            sn.clear();
            for (size_t k = 0; k < dn.size(); ++k) {
                int x = s.rank - static_cast<int>(dn.size()) + static_cast<int>(k);
                s.ext[x] = d.ext[dn[k]];
                sn.push_back(x);
            }
        } else if (volume(d) == 1 && static_cast<int>(sn.size()) <= d.rank) {
            dn.clear();
            for (size_t k = 0; k < sn.size(); ++k) {
                int x = d.rank - static_cast<int>(sn.size()) + static_cast<int>(k);
                d.ext[x] = s.ext[sn[k]];
                dn.push_back(x);
            }
        }
        if (!same())
            throw_diag(fr, DiagKind::ShapeMismatch, span,
                       {std::string("`") + op + "` from `" + src.buf->name + "` region " + extents_text(s) + " to `" +
                        dst.buf->name + "` region " + extents_text(d) + " in block " + block_text(fr)});
    }
    m.n = static_cast<int>(sn.size());
    for (int k = 0; k < m.n; ++k) {
        m.ext[k] = s.ext[sn[static_cast<size_t>(k)]];
        m.src_dim[k] = sn[static_cast<size_t>(k)];
        m.dst_dim[k] = dn[static_cast<size_t>(k)];
    }
    return m;
}

}  // namespace tp::interp
