// Fragment layout inference (see layout_inference.h): seeds from T.gemm accumulators and
// T.reduce_* sources, propagates through fragment copies and shared T.Parallel loops until
// nothing changes, then stripes whatever is left.
#include "transform/layout_inference.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "ir/functor.h"
#include "transform/fragment_access.h"
#include "transform/layout_collect.h"
#include "transform/striped_rows.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

using namespace layout_detail;

bool is_var(const Expr& e, const VarNode* v) { return e.get() == v; }

class Inference {
public:
    Collector& c;
    DiagnosticEngine& diags;
    std::map<const BufferNode*, FragLayout> layouts;
    std::set<const BufferNode*> reported;
    bool changed = false;

    const std::map<const GemmOpNode*, ops::WgmmaPlan>* wgmma = nullptr;

    Inference(Collector& col, DiagnosticEngine& d) : c(col), diags(d) {}

    void assign(const BufferNode* b, const FragLayout& l, Span span) {
        auto& cur = layouts[b];
        if (cur.kind == FragLayout::None) {
            cur = l;
            changed = true;
        } else if (!(cur == l) && reported.insert(b).second) {
            diags.report(DiagKind::NotYetLowered, span,
                         {"fragment `" + b->name + "` used with two layouts (" + cur.describe() + "; " + l.describe() + ")", "CUDA"});
        }
    }
    FragLayout get(const BufferNode* b) const {
        auto it = layouts.find(b);
        return it == layouts.end() ? FragLayout{} : it->second;
    }
    FragLayout derived(const FragLayout& acc, FragLayout::Kind k) const {
        FragLayout l = acc;
        l.kind = k;
        return l;
    }

    bool acc_for(int64_t m, int64_t n, GemmWarpPolicy policy, FragLayout& out) {
        int wm = 0, wn = 0;
        int warps = static_cast<int>(c.threads / 32);
        if (c.threads % 32 != 0 || !warp_partition(static_cast<int>(m), static_cast<int>(n), warps, policy, wm, wn)) return false;
        out.kind = FragLayout::Acc;
        out.bm = static_cast<int>(m);
        out.bn = static_cast<int>(n);
        out.warps_m = wm;
        out.warps_n = wn;
        out.threads = c.threads;
        return true;
    }

    void seed_gemms() {
        for (auto* g : c.gemms) {
            if (g->C.buffer->scope != Scope::Fragment) continue;
            auto cs = const_shape(g->C.buffer);
            if (cs.size() != 2) continue;
            FragLayout acc;
            const ops::WgmmaPlan* plan = nullptr;
            if (wgmma)
                if (auto it = wgmma->find(g); it != wgmma->end()) plan = &it->second;
            if (plan) {
                // wgmma: every warp 16 rows of each of its warpgroup's 64-row blocks (ops::plan_wgmma).
                acc.kind = FragLayout::Acc;
                acc.bm = static_cast<int>(cs[0]);
                acc.bn = static_cast<int>(cs[1]);
                acc.warps_m = plan->warps_m;
                acc.warps_n = plan->warps_n;
                acc.interleave = plan->m_blocks > 1;
                acc.threads = c.threads;
            } else if (!acc_for(cs[0], cs[1], g->policy, acc)) {
                diags.report(DiagKind::NotYetLowered, g->span,
                             {"T.gemm with a " + std::to_string(cs[0]) + "x" + std::to_string(cs[1]) + " accumulator on " +
                                  std::to_string(c.threads) + " threads (each warp needs 16-row, 8-column tiles)",
                              "CUDA"});
                continue;
            }
            assign(g->C.buffer.get(), acc, g->span);
            if (g->A.buffer->scope == Scope::Fragment) {
                auto as = const_shape(g->A.buffer);
                if (as.size() != 2) continue;
                FragLayout a = acc;
                a.bn = static_cast<int>(as[1]);
                a.warps_n = 1;  // tp::gemm_rs: every warp owns whole rows of A
                assign(g->A.buffer.get(), a, g->span);
            }
        }
    }

    void propagate() {
        for (auto* r : c.reduces) {
            if (r->src->scope != Scope::Fragment) continue;
            auto ss = const_shape(r->src);
            // A 1-D source reduces whole (a row of one), striped: its result is replicated.
            if (ss.size() != 2 && ss.size() != 1) continue;
            FragLayout src = get(r->src.get());
            if (src.kind == FragLayout::None && ss.size() == 2 && acc_for(ss[0], ss[1], GemmWarpPolicy::Square, src))
                assign(r->src.get(), src, r->span);
            if (src.kind != FragLayout::Acc && r->dst->scope == Scope::Fragment && get(r->dst.get()).kind == FragLayout::None) {
                // A striped source (no mma layout fits): the result is replicated in every thread.
                FragLayout rep;
                rep.kind = FragLayout::Replicated;
                rep.threads = c.threads;
                rep.elems = 1;
                for (int64_t d : const_shape(r->dst)) rep.elems *= d;
                assign(r->dst.get(), rep, r->span);
                continue;
            }
            if (src.kind == FragLayout::Acc && r->dst->scope == Scope::Fragment)
                assign(r->dst.get(), derived(src, r->dim == 1 ? FragLayout::Row : FragLayout::Col), r->span);
        }
        for (auto* cp : c.copies) {
            const BufferNode *s = cp->src.buffer.get(), *d = cp->dst.buffer.get();
            if (cp->src.buffer->scope != Scope::Fragment || cp->dst.buffer->scope != Scope::Fragment) continue;
            if (const_shape(cp->src.buffer) != const_shape(cp->dst.buffer)) continue;
            if (get(s).kind != FragLayout::None)
                assign(d, get(s), cp->span);
            else if (get(d).kind != FragLayout::None)
                assign(s, get(d), cp->span);
        }
        for (const auto& n : c.nests) {
            if (n.extents.empty()) continue;
            // Row vectors computed from replicated reduction results (online softmax's running
            // log-sum-exp, layer norm's mean) are replicated too: every thread computes them.
            for (const auto& a : n.frags) {
                FragLayout l = get(a.buffer);
                if (l.kind != FragLayout::Replicated || a.indices.size() != 1) continue;
                for (const auto& b : n.frags) {
                    auto fit = c.frags.find(b.buffer);
                    if (fit == c.frags.end() || b.indices.size() != 1 || get(b.buffer).kind != FragLayout::None) continue;
                    if (const_shape(fit->second) == std::vector<int64_t>{l.elems} && b.indices[0] == a.indices[0]) {
                        FragLayout rep = l;
                        assign(b.buffer, rep, n.span);
                    }
                }
            }
            const FragLayout* driver = nullptr;
            FragLayout drv;
            for (const auto& a : n.frags) {
                FragLayout l = get(a.buffer);
                if (n.vars.size() == 2 && l.kind == FragLayout::Acc && a.indices.size() == 2 && is_var(a.indices[0], n.vars[0]) &&
                    is_var(a.indices[1], n.vars[1]) && l.bm == n.extents[0] && l.bn == n.extents[1]) {
                    drv = l;
                    driver = &drv;
                    break;
                }
                if (n.vars.size() == 1 && (l.kind == FragLayout::Row || l.kind == FragLayout::Col) && a.indices.size() == 1 &&
                    is_var(a.indices[0], n.vars[0]) && n.extents[0] == (l.kind == FragLayout::Row ? l.bm : l.bn)) {
                    drv = l;
                    driver = &drv;
                    break;
                }
            }
            if (!driver) continue;
            for (const auto& a : n.frags) {
                auto fit = c.frags.find(a.buffer);
                if (fit == c.frags.end()) continue;
                auto shape = const_shape(fit->second);
                if (drv.kind == FragLayout::Acc) {
                    if (a.indices.size() == 2 && is_var(a.indices[0], n.vars[0]) && is_var(a.indices[1], n.vars[1]) &&
                        shape == std::vector<int64_t>{drv.bm, drv.bn}) {
                        FragLayout l = drv;
                        if (get(a.buffer).kind == FragLayout::None) assign(a.buffer, l, n.span);
                    } else if (a.indices.size() == 1 && is_var(a.indices[0], n.vars[0]) && shape == std::vector<int64_t>{drv.bm}) {
                        if (get(a.buffer).kind == FragLayout::None) assign(a.buffer, derived(drv, FragLayout::Row), n.span);
                    } else if (a.indices.size() == 1 && is_var(a.indices[0], n.vars[1]) && shape == std::vector<int64_t>{drv.bn}) {
                        if (get(a.buffer).kind == FragLayout::None) assign(a.buffer, derived(drv, FragLayout::Col), n.span);
                    }
                } else if (a.indices.size() == 1 && is_var(a.indices[0], n.vars[0]) && shape == std::vector<int64_t>{n.extents[0]}) {
                    if (get(a.buffer).kind == FragLayout::None) assign(a.buffer, drv, n.span);
                }
            }
        }
    }
};

// Fragments the code reads or writes one element at a time, the way TileLang replicates them:
// accessed outside every T.Parallel loop (`rms[0] += x` in serial code, `if mask[k]:` in a
// pipelined loop) or in one at indices that are not its loop variables in order (`c[i]` in a
// loop over (i, j)). Such a small fragment is held whole by every thread (Replicated), so every
// thread runs the serial code on its own copy and any loop may read it anywhere. It must be
// written only where every thread writes all of it: serial code, copies and fills from memory,
// and loops over replicated fragments only (a loop partitioned over the threads would leave
// each copy partly written). Larger ones stay striped (stage_fragments moves such accesses
// through shared memory).
constexpr int64_t kMaxReplicatedElems = 64;

void replicate_scalar_fragments(const Collector& c, Inference& inf) {
    std::set<const BufferNode*> odd = c.scalar, cand;
    for (const auto& n : c.nests)
        for (const auto& a : n.frags) {
            if (!c.frags.count(a.buffer)) continue;
            auto idx = squeeze_unit_dims(c.frags.at(a.buffer), a.indices);
            bool own = idx.size() == n.vars.size();
            for (size_t k = 0; own && k < idx.size(); ++k) own = is_var(idx[k], n.vars[k]);
            if (!own) odd.insert(a.buffer);
        }
    for (const auto* b : odd) {
        auto it = c.frags.find(b);
        if (it == c.frags.end() || inf.get(b).kind != FragLayout::None) continue;
        auto shape = const_shape(it->second);
        int64_t elems = 1;
        for (int64_t d : shape) elems *= d;
        if (shape.size() == it->second->shape.size() && elems <= kMaxReplicatedElems) cand.insert(b);
    }
    // Written or read by an op that lays it out itself (gemm operands, reductions, fragment to
    // fragment copies) or adds it once per owner (T.atomic_add): not replicated.
    for (auto* g : c.gemms)
        for (const BufferNode* b : {g->A.buffer.get(), g->B.buffer.get(), g->C.buffer.get()}) cand.erase(b);
    for (auto* r : c.reduces) {
        cand.erase(r->src.get());
        cand.erase(r->dst.get());
    }
    for (auto* cp : c.copies)
        if (cp->src.buffer->scope == Scope::Fragment) cand.erase(cp->dst.buffer.get());
    for (auto* b : c.atomic_srcs) cand.erase(b);
    auto replicated = [&](const BufferNode* b) { return cand.count(b) || inf.get(b).kind == FragLayout::Replicated; };
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& n : c.nests) {
            bool whole = n.extents.size() == n.vars.size();
            for (const auto& a : n.frags) whole &= replicated(a.buffer);
            if (whole) continue;
            for (const auto& a : n.frags)
                if (a.write && cand.erase(a.buffer)) changed = true;
        }
    }
    for (const auto* b : cand) {
        FragLayout rep;
        rep.kind = FragLayout::Replicated;
        rep.threads = c.threads;
        rep.elems = 1;
        for (int64_t d : const_shape(c.frags.at(b))) rep.elems *= d;
        inf.assign(b, rep, c.frags.at(b)->span);
    }
}

// Run length V of striped fragments (see fragment_layout.h). A fragment copied to or from
// global memory wants V elements of the narrowest such tensor to make 16 bytes, so those
// copies become 16-byte accesses (striped_copy.cpp; a run of a wider tensor takes several).
// T.Parallel loops and fragment copies pair striped fragments by element count, so all
// striped fragments of one count share one V: the largest wanted, or 1 when any of them is
// copied to or from shared or local memory (runs would cost bank conflicts there) or with a
// type the vector copy does not convert, or when V does not split the rows into whole runs.
// A fragment that is no whole number of rounds of V*T elements (a softmax row of 8000) keeps
// its runs: the last round's runs past the end are skipped, one test a run. Everything else keeps V = 1, today's element e in thread e % T.
// The run length for `elems` elements over `threads` when copies want runs of v and rows
// allow runs dividing `row`: whole rounds of v * threads; else runs of v with a partial last
// round when at least one round is whole; else whole rounds of shorter runs (4 or 8-byte
// accesses, every thread busy); else one partial round of v if it holds a warp's worth of
// runs (a 1000-wide row on 256 threads: 125 runs of 8); else scalar stripes.
int64_t striped_run(int64_t elems, int64_t threads, int64_t v, int64_t row) {
    auto fits = [&](int64_t w) { return elems % w == 0 && row % w == 0; };
    auto whole = [&](int64_t w) { return fits(w) && elems % (w * threads) == 0; };
    if (whole(v)) return v;
    if (fits(v) && elems >= v * threads) return v;
    for (int64_t w = v / 2; w >= 2; w /= 2)
        if (whole(w)) return w;
    if (fits(v) && elems / v >= 32) return v;
    return 1;
}

void choose_striped_runs(const Collector& c, std::map<const BufferNode*, FragLayout>& layouts) {
    auto vec_type = [](DataType t) {  // what striped_copy.cpp packs: fp32, 16-bit floats, fp8
        return t == DataType::float32() || t == DataType::float16() || t == DataType::bfloat16() || t.code == DataType::Float8E4M3 ||
               t.code == DataType::Float8E5M2;
    };
    std::map<int64_t, int64_t> want;  // elems -> smallest V wanted (0: none yet, 1: vetoed)
    auto striped = [&](const BufferNode* b) {
        auto it = layouts.find(b);
        return it != layouts.end() && it->second.kind == FragLayout::Striped ? &it->second : nullptr;
    };
    for (auto* cp : c.copies) {
        bool sf = cp->src.buffer->scope == Scope::Fragment, df = cp->dst.buffer->scope == Scope::Fragment;
        if (sf == df) continue;
        const BufferRegion& frag = sf ? cp->src : cp->dst;
        const BufferRegion& mem = sf ? cp->dst : cp->src;
        FragLayout* l = striped(frag.buffer.get());
        if (!l) continue;
        int64_t& w = want[l->elems];
        if (mem.buffer->scope != Scope::Global || !vec_type(mem.buffer->dtype) || !vec_type(frag.buffer->dtype)) {
            w = 1;
            continue;
        }
        int64_t v = 16 / mem.buffer->dtype.bytes();
        w = w == 0 ? v : (w == 1 ? 1 : std::max(w, v));
    }
    for (auto& [elems, v] : want) {
        if (v <= 1) continue;
        int64_t threads = 1, row = v;  // the rows' common run divisor
        for (const auto& [b, buf] : c.frags) {
            FragLayout* l = striped(b);
            if (!l || l->elems != elems) continue;
            auto shape = const_shape(buf);
            threads = l->threads;
            row = shape.empty() ? 1 : std::gcd(row, shape.back());
        }
        v = striped_run(elems, threads, v, row);
    }
    for (auto& [b, l] : layouts)
        if (l.kind == FragLayout::Striped) {
            auto it = want.find(l.elems);
            l.vec = it != want.end() && it->second > 1 ? it->second : 1;
        }
}

}  // namespace

std::map<const BufferNode*, FragLayout> infer_fragment_layouts(const PrimFunc& func, DiagnosticEngine& diags,
                                                               const std::map<const GemmOpNode*, ops::WgmmaPlan>* wgmma) {
    Collector c;
    c.visit(func.body);
    Inference inf(c, diags);
    inf.wgmma = wgmma;
    inf.seed_gemms();
    do {
        inf.changed = false;
        inf.propagate();
    } while (inf.changed);
    // Then what only element-wise code uses; their row vectors follow (propagate again).
    replicate_scalar_fragments(c, inf);
    while (inf.changed) {
        inf.changed = false;
        inf.propagate();
    }
    for (const auto& [b, buf] : c.frags) {
        if (inf.get(b).kind != FragLayout::None) continue;
        FragLayout s;
        s.kind = FragLayout::Striped;
        s.threads = c.threads > 0 ? c.threads : 1;
        s.elems = 1;
        for (int64_t d : const_shape(buf)) s.elems *= d;
        if (const_shape(buf).empty() && !buf->shape.empty()) continue;  // symbolic: reported by the rewrite
        inf.layouts[b] = s;
    }
    choose_striped_runs(c, inf.layouts);
    // Last: which rows a thread holds follows from the run lengths just chosen.
    keep_rows_in_their_threads(c, inf.layouts);
    return inf.layouts;
}

}  // namespace tp::transform
