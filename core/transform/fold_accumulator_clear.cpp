// fold_accumulator_clear (see fold_accumulator_clear.h).
#include "transform/fold_accumulator_clear.h"

#include <cmath>
#include <map>
#include <set>

#include "ir/functor.h"
#include "transform/box_predicate.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

bool is_zero(const Expr& e) {
    auto f = as_const_float(e);
    auto i = as_const_int(e);
    return (f && *f == 0.0) || (i && *i == 0);
}

// The fragment a statement sets to zero in every element, or null.
const BufferNode* zeroed_fragment(const Stmt& s) {
    if (auto* f = s->as<FillOpNode>())
        return f->dst.buffer->scope == Scope::Fragment && whole_buffer(f->dst) && is_zero(f->value) ? f->dst.buffer.get() : nullptr;
    // for i, j in T.Parallel(M, N): C[i, j] = 0 over C's whole (M, N) shape
    auto nest = match_parallel_nest(s);
    if (!nest || !nest->lets.empty() || nest->store->buffer->scope != Scope::Fragment || !is_zero(nest->store->value) ||
        !nest->stores_whole_buffer())
        return nullptr;
    return nest->store->buffer.get();
}

// A mask fill: a T.Parallel nest over a whole fragment storing T.if_then_else(c, x, y) with x
// and y each 0 or an infinity (scores masked to -inf before S = Q K^T accumulates onto them).
struct MaskFill {
    ParallelNest nest;
    const SelectNode* select = nullptr;
};

// 0, a float infinity constant, T.infinity(float dtype) or its negation.
bool zero_or_infinite(const Expr& e) {
    if (auto* u = e->as<UnaryNode>(); u && u->op == UnaryOp::Neg) return zero_or_infinite(u->a);
    if (auto* c = e->as<CallNode>(); c && c->op == "infinity") return c->dtype.is_float();
    auto f = as_const_float(e);
    return is_zero(e) || (f && std::isinf(*f));
}

std::optional<MaskFill> mask_fill(const Stmt& s) {
    auto nest = match_parallel_nest(s);
    if (!nest || nest->store->buffer->scope != Scope::Fragment || !nest->store->buffer->dtype.is_float() || !nest->stores_whole_buffer())
        return std::nullopt;
    auto* sel = nest->store->value->as<SelectNode>();
    if (!sel || !zero_or_infinite(sel->true_value) || !zero_or_infinite(sel->false_value)) return std::nullopt;
    return MaskFill{*nest, sel};
}

// The buffers an expression or statement reads.
struct Reads : IRVisitor {
    std::set<const BufferNode*> bufs;
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        bufs.insert(n.buffer.get());
        IRVisitor::visit_BufferLoad(n, e);
    }
};

struct Refs : IRVisitor {
    const BufferNode* b = nullptr;
    bool found = false;
    void visit_buffer(const Buffer& buf) override {
        found |= buf.get() == b;
        IRVisitor::visit_buffer(buf);
    }
};

bool refers_to(const Stmt& s, const BufferNode* b) {
    Refs r;
    r.b = b;
    r.visit(s);
    return r.found;
}

// The gemm that next uses fragment c as its whole accumulator, found from out[i + 1] on with no
// statement between naming c; its index, or out.size(). A gemm that already clears makes a zero
// fill dead, but a mask moved behind it would change what it computes.
size_t next_accumulating_gemm(const std::vector<Stmt>& out, size_t i, const BufferNode* c, bool even_if_clearing) {
    for (size_t j = i + 1; j < out.size(); ++j) {
        if (!out[j] || !refers_to(out[j], c)) continue;
        auto* g = out[j]->as<GemmOpNode>();
        bool ok = g && g->C.buffer.get() == c && whole_buffer(g->C) && g->A.buffer.get() != c && g->B.buffer.get() != c && (even_if_clearing || !g->clear_accum);
        return ok ? j : out.size();
    }
    return out.size();
}

Stmt cleared(const Stmt& gemm) {
    auto ng = std::make_shared<GemmOpNode>(*gemm->as<GemmOpNode>());
    ng->clear_accum = true;
    return ng;
}

// C[..] = c ? x : y, then C += A B  ->  C = A B, then C[..] = c ? C[..] + x : C[..] + y. Exact:
// adding 0 or an infinity gives the same value in either order, infinities and NaN included
// (only a -0 score may become +0, which no comparison, exp or sum tells apart). The gemm then
// overwrites (wgmma's scale-d = 0) and the mask is a nest guard_masks can skip on the tiles it
// leaves alone. The mask's condition must read nothing the statements it moves past write.
bool fold_mask(std::vector<Stmt>& out, std::map<size_t, Stmt>& after, size_t i) {
    auto m = mask_fill(out[i]);
    if (!m) return false;
    const BufferNode* c = m->nest.store->buffer.get();
    size_t j = next_accumulating_gemm(out, i, c, false);
    if (j == out.size()) return false;
    Reads reads;
    reads.visit(out[i]);
    for (size_t k = i + 1; k < j; ++k)
        for (const BufferNode* b : reads.bufs)
            if (out[k] && refers_to(out[k], b)) return false;
    const auto* st = m->nest.store;
    Expr cur = std::make_shared<BufferLoadNode>(st->buffer, st->indices, st->span);
    auto plus = [&](const Expr& k) { return is_zero(k) ? cur : make_binary(BinaryOp::Add, cur, k, st->span); };
    Expr v = make_select(m->select->cond, plus(m->select->true_value), plus(m->select->false_value), st->span);
    after[j] = rebuild(m->nest, std::make_shared<BufferStoreNode>(st->buffer, st->indices, v, st->span));
    out[j] = cleared(out[j]);
    out[i] = nullptr;
    return true;
}

std::vector<Stmt> fold(const std::vector<Stmt>& list) {
    std::vector<Stmt> out = list;
    std::map<size_t, Stmt> after;  // a moved mask, behind the gemm at that index
    for (size_t i = 0; i < out.size(); ++i) {
        if (!out[i] || fold_mask(out, after, i)) continue;
        const BufferNode* c = zeroed_fragment(out[i]);
        if (!c) continue;
        if (size_t j = next_accumulating_gemm(out, i, c, true); j < out.size()) {
            out[j] = cleared(out[j]);
            out[i] = nullptr;
        }
    }
    std::vector<Stmt> kept;
    for (size_t i = 0; i < out.size(); ++i) {
        if (out[i]) kept.push_back(out[i]);
        if (after.count(i)) kept.push_back(after[i]);
    }
    return kept;
}

}  // namespace

PrimFuncPtr fold_accumulator_clear(const PrimFuncPtr& func) {
    return rewrite_lists(func, fold);
}

}  // namespace tp::transform
