// simplify (see simplify.h). Rebuilds expressions bottom-up through the folding builders and
// adds the few re-associations index math needs: (x + c1) + c2 -> x + (c1 + c2),
// (x * c1) * c2 -> x * (c1 * c2), (x * c) // c -> x and (x * c) % c -> 0 for ints.
#include "transform/simplify.h"

#include <unordered_map>

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

Expr rebuild_binary(BinaryOp op, Expr a, Expr b, Span span) {
    auto cb = as_const_int(b);
    if (auto* inner = a->as<BinaryNode>(); inner && cb && a->dtype.is_int() && b->dtype == a->dtype) {
        auto ci = as_const_int(inner->b);
        if (ci && inner->op == op && (op == BinaryOp::Add || op == BinaryOp::Mul))
            return make_binary(op, inner->a, make_binary(op, inner->b, b), span);
        if (ci && inner->op == BinaryOp::Sub && op == BinaryOp::Add)
            return make_binary(BinaryOp::Add, inner->a, int_imm(*cb - *ci, b->dtype), span);
        if (ci && inner->op == BinaryOp::Add && op == BinaryOp::Sub)
            return make_binary(BinaryOp::Add, inner->a, int_imm(*ci - *cb, b->dtype), span);
        if (ci && inner->op == BinaryOp::Mul && *ci == *cb && *cb > 0) {
            if (op == BinaryOp::FloorDiv) return inner->a;
            if (op == BinaryOp::FloorMod) return int_imm(0, a->dtype, span);
        }
    }
    return make_binary(op, std::move(a), std::move(b), span);
}

class Simplifier : public IRMutator {
    // Lets of a variable or a constant are substituted: `e = tx; i = e` reads as `tx`.
    std::unordered_map<const VarNode*, Expr> subst_;

protected:
    Expr visit_Var(const VarNode& n, const Expr& e) override {
        auto it = subst_.find(&n);
        return it == subst_.end() ? e : it->second;
    }
    Stmt visit_LetStmt(const LetStmtNode& n, const Stmt& s) override {
        Expr v = mutate(n.value);
        if (v->as<VarNode>() || v->as<IntImmNode>()) {
            subst_[n.var.get()] = v;
            return mutate(n.body);
        }
        Stmt b = mutate(n.body);
        if (v == n.value && b == n.body) return s;
        return std::make_shared<LetStmtNode>(n.var, v, b, n.span);
    }
    Expr visit_Binary(const BinaryNode& n, const Expr& e) override {
        Expr a = mutate(n.a), b = mutate(n.b);
        Expr out = rebuild_binary(n.op, a, b, n.span);
        // Keep the original node when the rebuild is structurally the same.
        if (auto* o = out->as<BinaryNode>(); o && o->op == n.op && o->a == n.a && o->b == n.b && o->dtype == n.dtype) return e;
        return out;
    }
    Expr visit_Unary(const UnaryNode& n, const Expr& e) override {
        Expr a = mutate(n.a);
        Expr out = make_unary(n.op, a, n.span);
        if (auto* o = out->as<UnaryNode>(); o && o->op == n.op && o->a == n.a) return e;
        return out;
    }
    Expr visit_Cast(const CastNode& n, const Expr& e) override {
        Expr v = mutate(n.value);
        if (v == n.value && !v->as<IntImmNode>() && !v->as<FloatImmNode>()) return e;
        return make_cast(n.dtype, v, n.span);
    }
    Expr visit_Select(const SelectNode& n, const Expr& e) override {
        Expr c = mutate(n.cond), t = mutate(n.true_value), f = mutate(n.false_value);
        if (as_const_int(c)) return *as_const_int(c) ? t : f;
        if (c == n.cond && t == n.true_value && f == n.false_value) return e;
        return std::make_shared<SelectNode>(c, t, f, n.dtype, n.span);
    }
    Stmt visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override {
        Expr c = mutate(n.cond);
        if (auto k = as_const_int(c)) {
            if (*k) return mutate(n.then_case);
            return n.else_case ? mutate(n.else_case) : make_seq({}, n.span);
        }
        return IRMutator::visit_IfThenElse(n, s);
    }
    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        Expr ext = mutate(n.extent);
        if (auto k = as_const_int(ext); k && *k <= 0) return make_seq({}, n.span);
        return IRMutator::visit_For(n, s);
    }
};

}  // namespace

Expr simplify_expr(const Expr& e) {
    Simplifier s;
    return s.mutate(e);
}

PrimFuncPtr simplify(const PrimFuncPtr& func) {
    Simplifier s;
    return mutate_func(func, s);
}

}  // namespace tp::transform
