// simplify (see simplify.h). Rebuilds expressions bottom-up through the folding builders and
// adds the few re-associations index math needs: (x + c1) + c2 -> x + (c1 + c2),
// (x * c1) * c2 -> x * (c1 * c2), (x * c) // c -> x and (x * c) % c -> 0 for ints.
#include "transform/simplify.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

// Whether a statement reads variable v, and whether an expression calls anything (a binding
// whose value calls nothing can go when nothing reads it).
struct Reads : IRVisitor {
    const VarNode* v = nullptr;
    bool found = false, calls = false;
    void visit_Var(const VarNode& n, const Expr& e) override {
        found |= &n == v;
        IRVisitor::visit_Var(n, e);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        calls = true;
        IRVisitor::visit_Call(n, e);
    }
};

Expr rebuild_binary(BinaryOp op, Expr a, Expr b, Span span) {
    auto cb = as_const_int(b);
    if (auto* inner = a->as<BinaryNode>(); inner && cb && a->dtype.is_int() && b->dtype == a->dtype) {
        auto ci = as_const_int(inner->b);
        if (ci && inner->op == op && (op == BinaryOp::Add || op == BinaryOp::Mul))
            return make_binary(op, inner->a, make_binary(op, inner->b, b), span);
        if (ci && inner->op == BinaryOp::Sub && op == BinaryOp::Add) return make_binary(BinaryOp::Add, inner->a, int_imm(*cb - *ci, b->dtype), span);
        if (ci && inner->op == BinaryOp::Add && op == BinaryOp::Sub) return make_binary(BinaryOp::Add, inner->a, int_imm(*ci - *cb, b->dtype), span);
        if (ci && inner->op == BinaryOp::Mul && *ci == *cb && *cb > 0) {
            if (op == BinaryOp::FloorDiv) return inner->a;
            if (op == BinaryOp::FloorMod) return int_imm(0, a->dtype, span);
        }
    }
    return make_binary(op, std::move(a), std::move(b), span);
}

using Interval = std::pair<int64_t, int64_t>;

// Integer bounds of an expression from the bounds of its variables (loops, thread and block
// indices, lets); empty when unknown or when the arithmetic could leave [-2^40, 2^40].
std::optional<Interval> bounds_of(const Expr& e, const std::unordered_map<const VarNode*, Interval>& vars) {
    constexpr int64_t kLimit = int64_t(1) << 40;
    auto ok = [&](int64_t lo, int64_t hi) -> std::optional<Interval> {
        if (lo < -kLimit || hi > kLimit || lo > hi) return std::nullopt;
        return Interval{lo, hi};
    };
    if (!e->dtype.is_int()) return std::nullopt;
    if (auto c = as_const_int(e)) return ok(*c, *c);
    if (auto* v = e->as<VarNode>()) {
        auto it = vars.find(v);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    }
    if (auto* c = e->as<CastNode>()) return c->value->dtype.is_int() ? bounds_of(c->value, vars) : std::nullopt;
    auto* b = e->as<BinaryNode>();
    if (!b) return std::nullopt;
    auto x = bounds_of(b->a, vars), y = bounds_of(b->b, vars);
    if (!x || !y) return std::nullopt;
    auto [a0, a1] = *x;
    auto [b0, b1] = *y;
    switch (b->op) {
        case BinaryOp::Add:
            return ok(a0 + b0, a1 + b1);
        case BinaryOp::Sub:
            return ok(a0 - b1, a1 - b0);
        case BinaryOp::Mul: {
            int64_t p[] = {a0 * b0, a0 * b1, a1 * b0, a1 * b1};
            return ok(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
        }
        case BinaryOp::Min:
            return ok(std::min(a0, b0), std::min(a1, b1));
        case BinaryOp::Max:
            return ok(std::max(a0, b0), std::max(a1, b1));
        case BinaryOp::FloorDiv:
            if (b0 != b1 || b0 <= 0 || a0 < 0) return std::nullopt;
            return ok(a0 / b0, a1 / b0);
        case BinaryOp::FloorMod:
            if (b0 != b1 || b0 <= 0 || a0 < 0) return std::nullopt;
            return a1 < b0 ? ok(a0, a1) : ok(0, b0 - 1);
        default:
            return std::nullopt;
    }
}

// A comparison the bounds of both sides decide: 1 or 0, else empty.
std::optional<int64_t> decide(BinaryOp op, const Interval& a, const Interval& b) {
    switch (op) {
        case BinaryOp::LT:
            if (a.second < b.first) return 1;
            if (a.first >= b.second) return 0;
            break;
        case BinaryOp::LE:
            if (a.second <= b.first) return 1;
            if (a.first > b.second) return 0;
            break;
        case BinaryOp::GT:
            if (a.first > b.second) return 1;
            if (a.second <= b.first) return 0;
            break;
        case BinaryOp::GE:
            if (a.first >= b.second) return 1;
            if (a.second < b.first) return 0;
            break;
        default:
            break;
    }
    return std::nullopt;
}

// An integer expression as sum(coef * atom) + c, let-bound variables expanded through `defs`;
// atoms are keyed by their printed text, so equal subexpressions built twice cancel: the extent
// `kv_end - kv_start` of `kv_start = a * bz + k * 64; kv_end = a * bz + (k + 1) * 64` is 64.
struct Linear {
    std::map<std::string, int64_t> terms;
    int64_t c = 0;
};

std::optional<Linear> linear_form(const Expr& e, const std::unordered_map<const VarNode*, Expr>& defs, int depth = 0) {
    if (depth > 16 || !e->dtype.is_int()) return std::nullopt;
    Linear out;
    if (auto k = as_const_int(e)) {
        out.c = *k;
        return out;
    }
    if (auto* v = e->as<VarNode>()) {
        auto it = defs.find(v);
        if (it != defs.end()) return linear_form(it->second, defs, depth + 1);
    }
    if (auto* b = e->as<BinaryNode>()) {
        auto add = [](Linear& x, const Linear& y, int64_t sign) {
            for (const auto& [t, k] : y.terms) x.terms[t] += sign * k;
            x.c += sign * y.c;
        };
        if (b->op == BinaryOp::Add || b->op == BinaryOp::Sub) {
            auto x = linear_form(b->a, defs, depth + 1), y = linear_form(b->b, defs, depth + 1);
            if (!x || !y) return std::nullopt;
            add(*x, *y, b->op == BinaryOp::Add ? 1 : -1);
            return x;
        }
        auto ka = as_const_int(b->a), kb = as_const_int(b->b);
        if (b->op == BinaryOp::Mul && (ka || kb)) {
            auto x = linear_form(ka ? b->b : b->a, defs, depth + 1);
            if (!x) return std::nullopt;
            const int64_t f = ka ? *ka : *kb;
            for (auto& [t, k] : x->terms) k *= f;
            x->c *= f;
            return x;
        }
    }
    // Equal text is the same value only for what calls nothing (a call may have effects).
    Reads calls;
    calls.visit(e);
    if (calls.calls) return std::nullopt;
    out.terms[print(e)] = 1;
    return out;
}

class Simplifier : public IRMutator {
    // Values of the lets not substituted, for differences that cancel (linear_form).
    std::unordered_map<const VarNode*, Expr> defs_;

    // Lets of a variable or a constant are substituted: `e = tx; i = e` reads as `tx`.
    std::unordered_map<const VarNode*, Expr> subst_;
    // Bounds of loop, thread and block variables and of lets, for folding comparisons
    // (a mask `k * 128 + j >= 4096` that no iteration can meet).
    std::unordered_map<const VarNode*, Interval> range_;

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
        if (auto r = bounds_of(v, range_)) range_[n.var.get()] = *r;
        defs_[n.var.get()] = v;
        Stmt b = mutate(n.body);
        // A binding nothing reads (the i, j a lowered T.Parallel body no longer uses): gone from
        // the CUDA a user reads and from what NVRTC has to optimise away.
        Reads used, pure;
        used.v = n.var.get();
        used.visit(b);
        pure.visit(v);
        if (!used.found && !pure.calls) return b;
        if (v == n.value && b == n.body) return s;
        return std::make_shared<LetStmtNode>(n.var, v, b, n.span);
    }
    Expr visit_Binary(const BinaryNode& n, const Expr& e) override {
        Expr a = mutate(n.a), b = mutate(n.b);
        if (is_comparison(n.op)) {
            auto x = bounds_of(a, range_), y = bounds_of(b, range_);
            if (x && y)
                if (auto d = decide(n.op, *x, *y)) return int_imm(*d, DataType::boolean(), n.span);
        }
        if (n.op == BinaryOp::Sub && a->dtype.is_int() && !as_const_int(a)) {
            auto x = linear_form(a, defs_), y = linear_form(b, defs_);
            bool cancels = x && y;
            for (const auto& [t, k] : cancels ? x->terms : decltype(x->terms){}) cancels &= y->terms.count(t) ? y->terms.at(t) == k : k == 0;
            for (const auto& [t, k] : cancels ? y->terms : decltype(y->terms){}) cancels &= x->terms.count(t) ? true : k == 0;
            if (cancels) return int_imm(x->c - y->c, a->dtype, n.span);
        }
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
        auto lo = bounds_of(mutate(n.min), range_), count = bounds_of(ext, range_);
        if (lo && count && count->first > 0) range_[n.loop_var.get()] = {lo->first, lo->second + count->second - 1};
        return IRMutator::visit_For(n, s);
    }
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        for (size_t i = 0; i < n.thread_vars.size() && i < n.threads.size(); ++i) range_[n.thread_vars[i].get()] = {0, n.threads[i] - 1};
        for (size_t i = 0; i < n.block_vars.size() && i < n.grid.size(); ++i)
            if (auto g = as_const_int(n.grid[i]); g && *g > 0) range_[n.block_vars[i].get()] = {0, *g - 1};
        return IRMutator::visit_KernelLaunch(n, s);
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
