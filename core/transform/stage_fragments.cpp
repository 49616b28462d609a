// stage_fragments (see stage_fragments.h).
#include "transform/stage_fragments.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/functor.h"
#include "ops/access.h"
#include "transform/fragment_access.h"
#include "transform/layout_inference.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

struct FragAccess {
    Buffer buffer;
    std::vector<Expr> indices;
    bool write = false;
    bool conditional = false;  // under an `if` inside the loop
};

// The fragment accesses of a nest body in the order the rewrite meets them (a store before
// the loads of its value), as the driver is chosen by the first that fits.
struct AccessScan : IRVisitor {
    std::vector<FragAccess> found;
    int cond_depth = 0;
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        if (n.buffer->scope == Scope::Fragment) found.push_back({n.buffer, n.indices, false, cond_depth > 0});
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        if (n.buffer->scope == Scope::Fragment) found.push_back({n.buffer, n.indices, true, cond_depth > 0});
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override {
        visit(n.cond);
        ++cond_depth;
        visit(n.then_case);
        if (n.else_case) visit(n.else_case);
        --cond_depth;
    }
};

// Loads and stores of the staged fragments go to their shared tiles.
struct Redirect : IRMutator {
    const std::map<const BufferNode*, Buffer>* to;
    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        auto it = to->find(n.buffer.get());
        if (it == to->end()) return IRMutator::visit_BufferLoad(n, e);
        std::vector<Expr> idx;
        for (const auto& i : n.indices) idx.push_back(mutate(i));
        return std::make_shared<BufferLoadNode>(it->second, idx, n.span);
    }
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        auto it = to->find(n.buffer.get());
        if (it == to->end()) return IRMutator::visit_BufferStore(n, s);
        std::vector<Expr> idx;
        for (const auto& i : n.indices) idx.push_back(mutate(i));
        return std::make_shared<BufferStoreNode>(it->second, idx, mutate(n.value), n.span);
    }
};

class Stager : public IRMutator {
public:
    std::map<const BufferNode*, FragLayout> layouts;
    DiagnosticEngine* diags = nullptr;

    Stmt visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        Stmt body = mutate(n.body);
        if (fresh.count(n.buffer.get())) body = std::make_shared<AllocateNode>(stages->at(n.buffer.get()), nullptr, body, n.span);
        for (const auto& p : fresh_parts[n.buffer.get()]) body = std::make_shared<AllocateNode>(p, nullptr, body, n.span);
        if (body == n.body) return s;
        return std::make_shared<AllocateNode>(n.buffer, n.init, body, n.span);
    }

    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        if (n.for_kind != ForKind::Parallel) return IRMutator::visit_For(n, s);
        std::vector<const ForNode*> nest = {&n};
        while (auto* inner = nest.back()->body->as<ForNode>()) {
            if (inner->for_kind != ForKind::Parallel) break;
            nest.push_back(inner);
        }
        std::vector<const VarNode*> vars;
        std::vector<int64_t> ext;
        for (auto* f : nest) {
            auto e = as_const_int(f->extent);
            if (!e || as_const_int(f->min) != 0) return s;  // refused by the rewrite, with its message
            vars.push_back(f->loop_var.get());
            ext.push_back(*e);
        }
        AccessScan scan;
        scan.visit(nest.back()->body);
        std::set<const BufferNode*> staged = misplaced(scan.found, vars, ext);
        if (staged.empty()) return s;
        return stage(n, s, scan.found, staged, vars, ext);
    }

    // A T.gemm on mma.sync reads a register A only in the layout its accumulator gives it, whole
    // rows per warp; on a warp grid that splits columns (or a transposed A) the warps would
    // share rows, so A goes through a shared tile and the gemm reads both operands from there.
    Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        if (n.A.buffer->scope != Scope::Fragment || wgmma.count(&n) || !whole_buffer(n.A) || n.A.buffer->shape.size() != 2) return s;
        const FragLayout *cl = layout(n.C.buffer), *al = layout(n.A.buffer);
        auto bk = as_const_int(n.A.buffer->shape[n.transpose_A ? 0 : 1]);
        if (!cl || cl->kind != FragLayout::Acc || !bk) return s;
        bool rs = al && al->kind == FragLayout::Acc && !n.transpose_A && cl->warps_n == 1 && al->warps_n == 1 && al->bm == cl->bm &&
                  al->warps_m == cl->warps_m && al->bn == *bk;
        if (rs) return s;
        Buffer tile = tile_of(n.A.buffer);
        diags->report(DiagKind::FastPathNotTaken, n.span,
                      {"T.gemm with A in registers", "the accumulator's warp grid does not give each warp whole rows of A in its own layout",
                       "`" + n.A.buffer->name + "` goes through a shared-memory copy"});
        auto g = std::make_shared<GemmOpNode>(n);
        g->A = ops::whole_region(tile);
        return make_seq({std::make_shared<CopyOpNode>(n.A, ops::whole_region(tile), n.span), g}, n.span);
    }

    // A copy of part of a fragment meets elements by the region's shape, not the fragment's
    // layout: the part is copied from (or into) a whole shared copy of the fragment.
    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        const bool sf = partial(n.src), df = partial(n.dst);
        if (!sf && !df) return s;
        std::vector<Stmt> out;
        BufferRegion src = n.src, dst = n.dst;
        if (sf) {
            src.buffer = tile_of(n.src.buffer);
            out.push_back(std::make_shared<CopyOpNode>(ops::whole_region(n.src.buffer), ops::whole_region(src.buffer), n.span));
        }
        if (df) {
            dst.buffer = tile_of(n.dst.buffer);
            out.push_back(std::make_shared<CopyOpNode>(ops::whole_region(n.dst.buffer), ops::whole_region(dst.buffer), n.span));
        }
        out.push_back(std::make_shared<CopyOpNode>(src, dst, n.span));
        if (df) out.push_back(std::make_shared<CopyOpNode>(ops::whole_region(dst.buffer), ops::whole_region(n.dst.buffer), n.span));
        std::string names = sf ? "`" + n.src.buffer->name + "`" : "`" + n.dst.buffer->name + "`";
        diags->report(
            DiagKind::FastPathNotTaken, n.span,
            {"register copy of part of " + names, "the region does not follow the fragment's layout", "it goes through a shared-memory copy"});
        return make_seq(out, n.span);
    }

    // Reductions from accumulators of different warp grids into one vector would give it two
    // row (column) layouts: this one reduces into a part of its own and folds it in with a
    // T.Parallel loop, whose two layouts the next round meets through shared memory.
    Stmt visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override {
        const FragLayout *sl = layout(n.src), *dl = layout(n.dst);
        if (!sl || !dl || sl->kind != FragLayout::Acc || n.src->shape.size() != 2 || n.dst->shape.size() != 1) return s;
        FragLayout mine = *sl;
        mine.kind = n.dim == 1 ? FragLayout::Row : FragLayout::Col;
        if (*dl == mine || (dl->kind != FragLayout::Row && dl->kind != FragLayout::Col)) return s;
        Buffer& part = (*parts)[&n];
        if (!part) {
            part = std::make_shared<BufferNode>(n.dst->name + "_part", n.dst->dtype, n.dst->shape, Scope::Fragment, n.span);
            fresh_parts[n.dst.get()].push_back(part);
        }
        auto vars = nest_vars(1, n.span);
        Expr old = std::make_shared<BufferLoadNode>(n.dst, std::vector<Expr>{vars[0]}, n.span);
        Expr add = std::make_shared<BufferLoadNode>(part, std::vector<Expr>{vars[0]}, n.span);
        BinaryOp op = n.reduce_kind == ReduceKind::Max || n.reduce_kind == ReduceKind::AbsMax ? BinaryOp::Max
                      : n.reduce_kind == ReduceKind::Min                                      ? BinaryOp::Min
                                                                                              : BinaryOp::Add;
        Expr v = n.clear ? add : make_binary(op, old, add, n.span);
        Stmt fold = parallel_nest(vars, {n.dst->shape[0]}, std::make_shared<BufferStoreNode>(n.dst, std::vector<Expr>{vars[0]}, v, n.span), n.span);
        diags->report(DiagKind::FastPathNotTaken, n.span,
                      {"a reduction into `" + n.dst->name + "` in place", "another reduction gives it the rows of a different warp grid",
                       "it reduces into `" + part->name + "` and adds that in"});
        return make_seq({std::make_shared<ReduceOpNode>(n.reduce_kind, n.src, part, n.dim, true, n.span), fold}, n.span);
    }

    std::map<const GemmOpNode*, ops::WgmmaPlan> wgmma;
    std::map<const ReduceOpNode*, Buffer>* parts = nullptr;  // a reduction's own result, over all rounds
    std::map<const BufferNode*, Buffer>* stages = nullptr;   // fragment -> its shared tile, over all rounds

private:
    std::set<const BufferNode*> fresh;                             // fragments whose tile this round allocates
    std::map<const BufferNode*, std::vector<Buffer>> fresh_parts;  // reduction parts, by their vector

    // A region of a fragment that is not all of it, with more than one element (one element
    // is a scalar access, which layout inference replicates), in a laid-out fragment.
    bool partial(const BufferRegion& r) const {
        if (r.buffer->scope != Scope::Fragment || whole_buffer(r)) return false;
        const FragLayout* l = layout(r.buffer);
        bool one = true;
        for (const auto& d : r.region) one &= as_const_int(d.extent) == 1;
        return l && l->kind != FragLayout::Replicated && !one;
    }

    Buffer tile_of(const Buffer& b) {
        Buffer& tile = (*stages)[b.get()];
        if (!tile) {
            tile = std::make_shared<BufferNode>(b->name + "_stage", b->dtype, b->shape, Scope::Shared, b->span);
            fresh.insert(b.get());
        }
        return tile;
    }

    const FragLayout* layout(const Buffer& b) const {
        auto it = layouts.find(b.get());
        return it == layouts.end() ? nullptr : &it->second;
    }

    // The fragments of the nest that the rewrite could not lower where they are accessed.
    std::set<const BufferNode*> misplaced(const std::vector<FragAccess>& acc, const std::vector<const VarNode*>& vars,
                                          const std::vector<int64_t>& ext) const {
        const FragLayout* drv = nullptr;
        for (const auto& a : acc) {
            const FragLayout* l = layout(a.buffer);
            if (l && drives_nest(*l, squeeze_unit_dims(a.buffer, a.indices), vars, ext)) {
                drv = l;
                break;
            }
        }
        std::set<const BufferNode*> out;
        bool replicated = false;
        for (const auto& a : acc) {
            const FragLayout* l = layout(a.buffer);
            if (!l) return {};  // a symbolic shape: reported by the rewrite
            if (l->kind == FragLayout::Replicated) {
                replicated = true;
                continue;
            }
            if (!drv || !follows_driver(*l, *drv, squeeze_unit_dims(a.buffer, a.indices), vars, ext)) out.insert(a.buffer.get());
        }
        // With no driver the nest becomes a block-wide loop over shared memory; replicated
        // fragments in it would have every thread run all of it. That is right when the others
        // are only read (`rep[i] = striped[k, i]`): staged, every thread reads them from the
        // shared tile and fills its own copy. A striped fragment written there would be
        // written by every thread, so such a nest is left to the rewrite's message.
        if (!drv && replicated) {
            for (const auto& a : acc)
                if (a.write && out.count(a.buffer.get())) return {};
        }
        return out;
    }

    // Whether the nest's stores of `b` write every element of it: unconditional, each at a
    // permutation of all the loop variables over its shape.
    static bool written_whole(const Buffer& b, const std::vector<FragAccess>& acc, const std::vector<const VarNode*>& vars,
                              const std::vector<int64_t>& ext) {
        bool any = false;
        for (const auto& a : acc) {
            if (a.buffer != b) continue;
            if (!a.write || a.conditional || a.indices.size() != vars.size() || b->shape.size() != vars.size()) return false;
            std::set<const VarNode*> seen;
            for (size_t k = 0; k < a.indices.size(); ++k) {
                auto* v = a.indices[k]->as<VarNode>();
                size_t pos = std::find(vars.begin(), vars.end(), v) - vars.begin();
                if (!v || pos == vars.size() || !seen.insert(v).second || as_const_int(b->shape[k]) != ext[pos]) return false;
            }
            any = true;
        }
        return any;
    }

    Stmt stage(const ForNode& n, const Stmt& s, const std::vector<FragAccess>& acc, const std::set<const BufferNode*>& staged,
               const std::vector<const VarNode*>& vars, const std::vector<int64_t>& ext) {
        std::map<const BufferNode*, Buffer> to;
        std::vector<Stmt> pre, post;
        std::string names;
        for (const auto& a : acc) {
            if (!staged.count(a.buffer.get()) || to.count(a.buffer.get())) continue;
            Buffer tile = tile_of(a.buffer);
            to[a.buffer.get()] = tile;
            bool written = false;
            for (const auto& b : acc) written |= b.buffer == a.buffer && b.write;
            if (!written_whole(a.buffer, acc, vars, ext))
                pre.push_back(std::make_shared<CopyOpNode>(ops::whole_region(a.buffer), ops::whole_region(tile), n.span));
            if (written) post.push_back(std::make_shared<CopyOpNode>(ops::whole_region(tile), ops::whole_region(a.buffer), n.span));
            names += (names.empty() ? "`" : ", `") + a.buffer->name + "`";
        }
        diags->report(DiagKind::FastPathNotTaken, n.span,
                      {"register access of " + names, "the loop reaches elements that other threads hold", "they go through a shared-memory copy"});
        Redirect r;
        r.to = &to;
        pre.push_back(r.mutate(s));
        pre.insert(pre.end(), post.begin(), post.end());
        return make_seq(pre, n.span);
    }
};

}  // namespace

PrimFuncPtr stage_fragments(const PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags) {
    // Staging changes the layouts the rest gets (a gemm operand no longer seeded by its gemm
    // is laid out by its loops), which may leave other accesses misplaced: again on the new
    // layouts until none is. Every round moves accesses out of registers, so few rounds run.
    PrimFuncPtr cur = func;
    std::map<const BufferNode*, Buffer> stages;
    std::map<const ReduceOpNode*, Buffer> parts;
    for (int round = 0; round < 8; ++round) {
        // The layouts layout-inference will choose; its own run reports any problem with them.
        DiagnosticEngine quiet;
        Stager st;
        st.wgmma = plan_wgmma_gemms(*cur, target, quiet);
        st.layouts = infer_fragment_layouts(*cur, quiet, &st.wgmma);
        // A layout conflict is an error layout-inference reports if staging leaves it; the
        // layouts first assigned are the ones to stage by.
        st.diags = &diags;
        st.stages = &stages;
        st.parts = &parts;
        PrimFuncPtr next = mutate_func(cur, st);
        if (next == cur) return cur;
        cur = next;
    }
    return cur;
}

}  // namespace tp::transform
