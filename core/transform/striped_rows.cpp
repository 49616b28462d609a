// StripedRow layouts for row reductions of striped tiles (see striped_rows.h).
#include "transform/striped_rows.h"

#include <optional>

#include "transform/fragment_access.h"

namespace tp::transform {

using namespace ir;
using namespace layout_detail;

namespace {

using Layouts = std::map<const BufferNode*, FragLayout>;

// The StripedRow layout the result of `r` can take: a row reduction (dim 1) of a striped
// R x L fragment into a replicated vector of R, with runs inside rows, whole rows in every
// round, and a row's lanes inside one warp (the reduction shuffles across them).
std::optional<FragLayout> rows_layout(const ReduceOpNode& r, const Layouts& layouts) {
    auto src = layouts.find(r.src.get()), dst = layouts.find(r.dst.get());
    if (src == layouts.end() || dst == layouts.end() || src->second.kind != FragLayout::Striped || dst->second.kind != FragLayout::Replicated)
        return std::nullopt;
    auto ss = const_shape(r.src), ds = const_shape(r.dst);
    if (ss.size() != 2 || r.dim != 1 || ds != std::vector<int64_t>{ss[0]}) return std::nullopt;
    const int64_t rows = ss[0], len = ss[1], v = std::max<int64_t>(1, src->second.vec), t = src->second.threads;
    if (t % 32 != 0 || len % v != 0 || (v * t) % len != 0 || (rows * len) % (v * t) != 0) return std::nullopt;
    const int64_t lanes = len / v;
    if (lanes > 32 || 32 % lanes != 0) return std::nullopt;
    FragLayout l;
    l.kind = FragLayout::StripedRow;
    l.elems = rows;
    l.threads = t;
    l.vec = v;
    l.row_len = len;
    return l;
}

bool indexed_by_first_var(const Collector& c, const Access& a, const Nest& n) {
    auto idx = squeeze_unit_dims(c.frags.at(a.buffer), a.indices);
    return idx.size() == 1 && !n.vars.empty() && idx[0].get() == n.vars[0];
}

class RowCandidates {
public:
    RowCandidates(const Collector& col, const Layouts& l) : c(col), layouts(l) {}

    Layouts cand;

    void seed() {
        std::set<const BufferNode*> clash;
        for (auto* r : c.reduces) {
            auto l = rows_layout(*r, layouts);
            if (!l) continue;
            auto [it, fresh] = cand.emplace(r->dst.get(), *l);
            if (!fresh && !(it->second == *l)) clash.insert(r->dst.get());
        }
        for (auto* b : clash) cand.erase(b);
    }

    // Row vectors computed from candidates in loops over the rows (the scale of a row from its
    // maximum) join them: they were replicated by the same rule (layout_inference.cpp).
    void grow() {
        for (bool changed = true; changed;) {
            changed = false;
            for (const auto& n : c.nests) {
                if (n.vars.size() != 1 || n.extents.size() != 1) continue;
                const FragLayout* l = nullptr;
                for (const auto& a : n.frags)
                    if (cand.count(a.buffer) && indexed_by_first_var(c, a, n)) l = &cand.at(a.buffer);
                if (!l) continue;
                const FragLayout row = *l;
                for (const auto& a : n.frags) {
                    auto it = layouts.find(a.buffer);
                    if (cand.count(a.buffer) || it == layouts.end() || it->second.kind != FragLayout::Replicated) continue;
                    if (const_shape(c.frags.at(a.buffer)) == std::vector<int64_t>{row.elems} && indexed_by_first_var(c, a, n)) {
                        cand.emplace(a.buffer, row);
                        changed = true;
                    }
                }
            }
        }
    }

    // Drops candidates with an access the layout cannot serve, until all that are left can.
    void prune() {
        for (bool changed = true; changed;) {
            changed = false;
            for (auto it = cand.begin(); it != cand.end();) {
                if (allowed(it->first, it->second)) {
                    ++it;
                } else {
                    it = cand.erase(it);
                    changed = true;
                }
            }
        }
    }

private:
    const Collector& c;
    const Layouts& layouts;

    bool same(const BufferNode* b, const FragLayout& l) const {
        auto it = cand.find(b);
        return it != cand.end() && it->second == l;
    }

    bool allowed(const BufferNode* b, const FragLayout& l) const {
        if (c.scalar.count(b) || c.printed.count(b)) return false;
        for (auto* a : c.atomic_srcs)
            if (a == b) return false;
        for (auto* g : c.gemms)
            if (g->A.buffer.get() == b || g->B.buffer.get() == b || g->C.buffer.get() == b) return false;
        for (auto* r : c.reduces) {
            if (r->src.get() == b) return false;
            if (r->dst.get() == b) {
                auto rl = rows_layout(*r, layouts);
                if (!rl || !(*rl == l)) return false;
            }
        }
        for (auto* cp : c.copies) {
            const BufferNode *s = cp->src.buffer.get(), *d = cp->dst.buffer.get();
            if (s != b && d != b) continue;
            // A whole fragment-to-fragment copy within the group keeps the layout (local slots).
            if (!same(s, l) || !same(d, l) || const_shape(cp->src.buffer) != const_shape(cp->dst.buffer)) return false;
        }
        for (const auto& n : c.nests)
            for (const auto& a : n.frags)
                if (a.buffer == b && !allowed_in(n, a, l)) return false;
        return true;
    }

    // In a loop over the rows, every fragment is a row vector of the group read at the row; in
    // an element loop over the tile, the vector is only read, at the row of a striped driver.
    bool allowed_in(const Nest& n, const Access& a, const FragLayout& l) const {
        if (!indexed_by_first_var(c, a, n)) return false;
        if (n.extents.size() == 1 && n.vars.size() == 1 && n.extents[0] == l.elems) {
            for (const auto& x : n.frags)
                if (!same(x.buffer, l) || !indexed_by_first_var(c, x, n)) return false;
            return true;
        }
        if (a.write || n.extents.size() != 2) return false;
        for (const auto& x : n.frags) {
            auto it = layouts.find(x.buffer);
            if (it == layouts.end()) continue;
            auto idx = squeeze_unit_dims(c.frags.at(x.buffer), x.indices);
            if (drives_nest(it->second, idx, n.vars, n.extents))  // the nest's driver, as the rewrite picks it
                return it->second.kind == FragLayout::Striped &&
                       follows_driver(l, it->second, squeeze_unit_dims(c.frags.at(a.buffer), a.indices), n.vars, n.extents);
        }
        return false;
    }
};

}  // namespace

void keep_rows_in_their_threads(const Collector& c, Layouts& layouts) {
    RowCandidates rc(c, layouts);
    rc.seed();
    rc.grow();
    rc.prune();
    for (const auto& [b, l] : rc.cand) layouts[b] = l;
}

}  // namespace tp::transform
