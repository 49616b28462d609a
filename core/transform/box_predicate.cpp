// Conditions over a box of loop variables (see box_predicate.h).
#include "transform/box_predicate.h"

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

struct UsesBox : IRVisitor {
    const Box* box = nullptr;
    bool found = false;
    void visit_Var(const VarNode& n, const Expr& e) override {
        found |= box->count(&n) > 0;
        IRVisitor::visit_Var(n, e);
    }
};

struct Substitute : IRMutator {
    const std::map<const VarNode*, Expr>* values = nullptr;
    Expr visit_Var(const VarNode& n, const Expr& e) override {
        auto it = values->find(&n);
        return it == values->end() ? e : it->second;
    }
};

bool is_int(const Expr& e) { return e && e->dtype.is_int(); }

AffineForm scaled(AffineForm f, int64_t k) {
    for (auto& [v, c] : f.coef) c *= k;
    f.rest = make_binary(BinaryOp::Mul, f.rest, int_imm(k, f.rest->dtype));
    return f;
}

AffineForm combined(AffineForm a, const AffineForm& b, int64_t sign) {
    for (const auto& [v, c] : b.coef) a.coef[v] += sign * c;
    a.rest = make_binary(sign > 0 ? BinaryOp::Add : BinaryOp::Sub, a.rest, b.rest);
    return a;
}

// The least (want_max false) or greatest value of f over the box.
Expr extreme(const AffineForm& f, const Box& box, bool want_max) {
    Expr out = f.rest;
    for (const auto& [v, c] : f.coef) {
        const int64_t span = c * (box.at(v) - 1);
        if ((span > 0) == want_max && span != 0) out = make_binary(BinaryOp::Add, out, int_imm(span, out->dtype));
    }
    return out;
}

BinaryOp negated(BinaryOp op) {
    switch (op) {
        case BinaryOp::LT:
            return BinaryOp::GE;
        case BinaryOp::LE:
            return BinaryOp::GT;
        case BinaryOp::GT:
            return BinaryOp::LE;
        default:
            return BinaryOp::LT;  // GE
    }
}

bool ordering(BinaryOp op) { return op == BinaryOp::LT || op == BinaryOp::LE || op == BinaryOp::GT || op == BinaryOp::GE; }

// a OP b everywhere: on d = a - b, GE/GT need its least value >= / > 0, LE/LT
// its greatest <= / < 0.
Expr comparison_everywhere(BinaryOp op, const Expr& a, const Expr& b, const Box& box) {
    if (!is_int(a) || !is_int(b)) return nullptr;
    auto fa = affine_in(a, box), fb = affine_in(b, box);
    if (!fa || !fb) return nullptr;
    AffineForm d = combined(*fa, *fb, -1);
    const bool lower = op == BinaryOp::GE || op == BinaryOp::GT;
    return make_binary(op, extreme(d, box, !lower), int_imm(0, d.rest->dtype));
}

}  // namespace

bool uses_box(const Expr& e, const Box& box) {
    UsesBox u;
    u.box = &box;
    u.visit(e);
    return u.found;
}

std::optional<AffineForm> affine_in(const Expr& e, const Box& box) {
    if (!uses_box(e, box)) return AffineForm{{}, e};
    if (auto* v = e->as<VarNode>()) return AffineForm{{{v, 1}}, int_imm(0, e->dtype)};
    if (auto* c = e->as<CastNode>(); c && is_int(e) && is_int(c->value)) return affine_in(c->value, box);
    auto* b = e->as<BinaryNode>();
    if (!b || !is_int(e)) return std::nullopt;
    auto fa = affine_in(b->a, box), fb = affine_in(b->b, box);
    if (!fa || !fb) return std::nullopt;
    switch (b->op) {
        case BinaryOp::Add:
            return combined(*fa, *fb, 1);
        case BinaryOp::Sub:
            return combined(*fa, *fb, -1);
        case BinaryOp::Mul: {
            auto ka = fa->coef.empty() ? as_const_int(b->a) : std::nullopt, kb = fb->coef.empty() ? as_const_int(b->b) : std::nullopt;
            if (kb) return scaled(*fa, *kb);
            if (ka) return scaled(*fb, *ka);
            return std::nullopt;
        }
        default:
            return std::nullopt;
    }
}

Expr holds_everywhere(const Expr& cond, const Box& box) {
    if (!cond) return nullptr;
    if (!uses_box(cond, box)) return cond;
    if (auto* u = cond->as<UnaryNode>(); u && u->op == UnaryOp::Not)
        if (auto* b = u->a->as<BinaryNode>(); b && ordering(b->op)) return comparison_everywhere(negated(b->op), b->a, b->b, box);
    auto* b = cond->as<BinaryNode>();
    if (!b) return nullptr;
    if (b->op == BinaryOp::And) {
        Expr x = holds_everywhere(b->a, box), y = holds_everywhere(b->b, box);
        return x && y ? make_binary(BinaryOp::And, x, y) : nullptr;
    }
    if (ordering(b->op)) return comparison_everywhere(b->op, b->a, b->b, box);
    return nullptr;
}

Expr substitute(const Expr& e, const std::map<const VarNode*, Expr>& values) {
    if (values.empty()) return e;
    Substitute s;
    s.values = &values;
    return s.mutate(e);
}

bool same_expr(const Expr& a, const Expr& b) {
    if (a == b) return true;
    if (!a || !b || a->kind != b->kind || a->dtype != b->dtype) return false;
    if (auto* x = a->as<IntImmNode>()) return x->value == b->as<IntImmNode>()->value;
    if (auto* x = a->as<FloatImmNode>()) return x->value == b->as<FloatImmNode>()->value;
    if (auto* x = a->as<CastNode>()) return same_expr(x->value, b->as<CastNode>()->value);
    if (auto* x = a->as<BinaryNode>()) {
        auto* y = b->as<BinaryNode>();
        return x->op == y->op && same_expr(x->a, y->a) && same_expr(x->b, y->b);
    }
    if (auto* x = a->as<BufferLoadNode>()) {
        auto* y = b->as<BufferLoadNode>();
        if (x->buffer != y->buffer || x->indices.size() != y->indices.size()) return false;
        for (size_t i = 0; i < x->indices.size(); ++i)
            if (!same_expr(x->indices[i], y->indices[i])) return false;
        return true;
    }
    return false;  // Vars are equal only as the same node (a == b above)
}

// A one-statement SeqStmt is that statement.
const StmtNode* single(const StmtNode* s) {
    while (auto* q = s ? s->as<SeqStmtNode>() : nullptr) s = q->seq.size() == 1 ? q->seq[0].get() : nullptr;
    return s;
}

std::optional<ParallelNest> match_parallel_nest(const Stmt& s) {
    ParallelNest n;
    const StmtNode* cur = single(s.get());
    while (auto* f = cur ? cur->as<ForNode>() : nullptr) {
        auto ext = as_const_int(f->extent);
        if (f->for_kind != ForKind::Parallel || as_const_int(f->min) != 0 || !ext || *ext <= 0) return std::nullopt;
        n.loops.push_back(f);
        n.box[f->loop_var.get()] = *ext;
        cur = single(f->body.get());
    }
    while (auto* l = cur ? cur->as<LetStmtNode>() : nullptr) {
        n.lets.push_back(l);
        n.bindings[l->var.get()] = substitute(l->value, n.bindings);
        cur = single(l->body.get());
    }
    n.store = cur ? cur->as<BufferStoreNode>() : nullptr;
    if (n.loops.empty() || !n.store) return std::nullopt;
    return n;
}

bool ParallelNest::stores_whole_buffer() const {
    if (store->indices.size() != loops.size() || store->buffer->shape.size() != loops.size()) return false;
    for (size_t d = 0; d < loops.size(); ++d) {
        auto dim = as_const_int(store->buffer->shape[d]);
        if (store->indices[d].get() != loops[d]->loop_var.get() || !dim || *dim != box.at(loops[d]->loop_var.get())) return false;
    }
    return true;
}

Stmt rebuild(const ParallelNest& nest, Stmt store) {
    Stmt body = std::move(store);
    for (auto it = nest.lets.rbegin(); it != nest.lets.rend(); ++it)
        body = std::make_shared<LetStmtNode>((*it)->var, (*it)->value, body, (*it)->span);
    for (auto it = nest.loops.rbegin(); it != nest.loops.rend(); ++it) {
        auto f = std::make_shared<ForNode>(**it);
        f->body = body;
        body = f;
    }
    return body;
}

}  // namespace tp::transform
