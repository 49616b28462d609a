// fold_accumulator_clear (see fold_accumulator_clear.h).
#include "transform/fold_accumulator_clear.h"

#include "ir/functor.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

bool is_zero(const Expr& e) {
    auto f = as_const_float(e);
    auto i = as_const_int(e);
    return (f && *f == 0.0) || (i && *i == 0);
}

bool whole(const BufferRegion& r) {
    if (r.region.size() != r.buffer->shape.size()) return false;
    for (size_t d = 0; d < r.region.size(); ++d) {
        auto mn = as_const_int(r.region[d].min), ext = as_const_int(r.region[d].extent), dim = as_const_int(r.buffer->shape[d]);
        if (!mn || *mn != 0 || !ext || !dim || *ext != *dim) return false;
    }
    return true;
}

// The fragment a statement sets to zero in every element, or null.
const BufferNode* zeroed_fragment(const Stmt& s) {
    if (auto* f = s->as<FillOpNode>())
        return f->dst.buffer->scope == Scope::Fragment && whole(f->dst) && is_zero(f->value) ? f->dst.buffer.get() : nullptr;
    // for i, j in T.Parallel(M, N): C[i, j] = 0 over C's whole (M, N) shape
    std::vector<const ForNode*> nest;
    const StmtNode* cur = s.get();
    while (auto* f = cur->as<ForNode>()) {
        if (f->for_kind != ForKind::Parallel || as_const_int(f->min) != 0) return nullptr;
        nest.push_back(f);
        cur = f->body.get();
    }
    auto* st = cur->as<BufferStoreNode>();
    if (nest.empty() || !st || st->buffer->scope != Scope::Fragment || !is_zero(st->value)) return nullptr;
    if (st->indices.size() != nest.size() || st->buffer->shape.size() != nest.size()) return nullptr;
    for (size_t d = 0; d < nest.size(); ++d) {
        auto ext = as_const_int(nest[d]->extent), dim = as_const_int(st->buffer->shape[d]);
        if (st->indices[d].get() != nest[d]->loop_var.get() || !ext || !dim || *ext != *dim) return nullptr;
    }
    return st->buffer.get();
}

struct Refs : IRVisitor {
    const BufferNode* b = nullptr;
    bool found = false;
    void visit_buffer(const Buffer& buf) override {
        found |= buf.get() == b;
        IRVisitor::visit_buffer(buf);
    }
};

std::vector<Stmt> fold(const std::vector<Stmt>& list) {
    std::vector<Stmt> out = list;
    for (size_t i = 0; i < out.size(); ++i) {
        const BufferNode* c = out[i] ? zeroed_fragment(out[i]) : nullptr;
        if (!c) continue;
        for (size_t j = i + 1; j < out.size(); ++j) {
            Refs r;
            r.b = c;
            r.visit(out[j]);
            if (!r.found) continue;
            auto* g = out[j]->as<GemmOpNode>();
            if (g && g->C.buffer.get() == c && whole(g->C) && g->A.buffer.get() != c && g->B.buffer.get() != c) {
                auto ng = std::make_shared<GemmOpNode>(*g);
                ng->clear_accum = true;
                out[j] = ng;
                out[i] = nullptr;
            }
            break;
        }
    }
    std::vector<Stmt> kept;
    for (auto& s : out)
        if (s) kept.push_back(s);
    return kept;
}

}  // namespace

PrimFuncPtr fold_accumulator_clear(const PrimFuncPtr& func) {
    return rewrite_lists(func, fold);
}

}  // namespace tp::transform
