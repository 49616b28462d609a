// The nest-driving rule of fragment accesses (see fragment_access.h).
#include "transform/fragment_access.h"

namespace tp::transform {

using namespace ir;

std::vector<Expr> squeeze_unit_dims(const Buffer& b, const std::vector<Expr>& idx) {
    if (idx.size() != b->shape.size()) return idx;
    std::vector<Expr> out;
    for (size_t k = 0; k < idx.size(); ++k)
        if (!(as_const_int(b->shape[k]) == 1 && as_const_int(idx[k]) == 0)) out.push_back(idx[k]);
    return out;
}

namespace {

// A striped nest's element e is unflattened over the loop's extents: the loop must run over
// every element (a loop over part of the fragment would meet elements it does not name).
bool covers(const FragLayout& l, const std::vector<int64_t>& ext) {
    int64_t n = 1;
    for (int64_t e : ext) n *= e;
    return n == l.elems;
}

}  // namespace

bool drives_nest(const FragLayout& l, const std::vector<Expr>& idx, const std::vector<const VarNode*>& vars, const std::vector<int64_t>& ext) {
    if (idx.size() != vars.size()) return false;
    for (size_t k = 0; k < idx.size(); ++k)
        if (idx[k].get() != vars[k]) return false;
    return (l.kind == FragLayout::Acc && ext.size() == 2 && ext[0] == l.bm && ext[1] == l.bn) ||
           (l.kind == FragLayout::Row && ext.size() == 1 && ext[0] == l.bm) || (l.kind == FragLayout::Col && ext.size() == 1 && ext[0] == l.bn) ||
           (l.kind == FragLayout::Striped && covers(l, ext)) || (l.kind == FragLayout::StripedRow && ext.size() == 1 && ext[0] == l.elems);
}

bool follows_driver(const FragLayout& l, const FragLayout& d, const std::vector<Expr>& idx, const std::vector<const VarNode*>& vars,
                    const std::vector<int64_t>& ext) {
    auto var_is = [&](size_t k, size_t v) { return k < idx.size() && v < vars.size() && idx[k].get() == vars[v]; };
    if (d.kind == FragLayout::Acc) {
        if (l.kind == FragLayout::Acc && l == d && idx.size() == 2 && var_is(0, 0) && var_is(1, 1)) return true;
        if (l.kind == FragLayout::Row && l.same_rows(d) && idx.size() == 1 && var_is(0, 0)) return true;
        if (l.kind == FragLayout::Col && l.same_cols(d) && idx.size() == 1 && var_is(0, 1)) return true;
        return false;
    }
    if (d.kind == FragLayout::Row || d.kind == FragLayout::Col) {
        bool same = d.kind == FragLayout::Row ? l.same_rows(d) : l.same_cols(d);
        return l.kind == d.kind && same && idx.size() == 1 && var_is(0, 0);
    }
    if (d.kind == FragLayout::StripedRow) return l == d && idx.size() == 1 && var_is(0, 0);
    if (d.kind == FragLayout::Striped && l.kind == FragLayout::StripedRow) {
        // An element loop over the rows x L tile reads its row's value: the row of the driver's run.
        return l.threads == d.threads && l.vec == d.vec && l.elems * l.row_len == d.elems && ext.size() == 2 && ext[0] == l.elems &&
               ext[1] == l.row_len && idx.size() == 1 && var_is(0, 0);
    }
    if (d.kind == FragLayout::Striped && l.kind == FragLayout::Striped && l.elems == d.elems && l.vec == d.vec) {
        // The loop's vars in order; a var of extent 1 is always 0 and may be left out
        // (dgamma[j] inside T.Parallel(1, D) over x_hat[i, j]: the same element order).
        std::vector<size_t> want;
        for (size_t v = 0; v < vars.size(); ++v)
            if (idx.size() == vars.size() || ext[v] != 1) want.push_back(v);
        bool all = idx.size() == want.size();
        for (size_t k = 0; all && k < idx.size(); ++k) all &= var_is(k, want[k]);
        return all;
    }
    return false;
}

}  // namespace tp::transform
