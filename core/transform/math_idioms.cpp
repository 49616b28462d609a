// math_idioms (see math_idioms.h): pattern matching of the exact-GELU formula.
#include "transform/math_idioms.h"

#include <cmath>
#include <vector>

#include "ir/functor.h"
#include "transform/box_predicate.h"

namespace tp::transform {

using namespace ir;

namespace {

bool is_f32(const Expr& e) { return e && e->dtype == DataType::float32(); }

// A float constant within float32 rounding of v (the DSL folds Python's double constants,
// then prints them rounded to float).
bool is_const(const Expr& e, double v) {
    const Expr* x = &e;
    while (auto* c = (*x)->as<CastNode>()) x = &c->value;
    if (auto* f = (*x)->as<FloatImmNode>()) return std::fabs(f->value - v) <= 1e-6 * std::fabs(v);
    if (auto* i = (*x)->as<IntImmNode>()) return double(i->value) == v;
    return false;
}

// The factors of a float32 product tree; a division by 2 counts as a factor 0.5.
void factors(const Expr& e, std::vector<Expr>& out, int& halves) {
    if (auto* b = e->as<BinaryNode>(); b && is_f32(e)) {
        if (b->op == BinaryOp::Mul) {
            factors(b->a, out, halves);
            factors(b->b, out, halves);
            return;
        }
        if (b->op == BinaryOp::Div && is_const(b->b, 2.0)) {
            ++halves;
            factors(b->a, out, halves);
            return;
        }
    }
    out.push_back(e);
}

// erf(x / sqrt 2) -> x.
Expr erf_scaled_arg(const Expr& e) {
    auto* c = e->as<CallNode>();
    if (!c || c->op != "erf" || c->args.size() != 1 || !is_f32(e)) return nullptr;
    auto* b = c->args[0]->as<BinaryNode>();
    if (!b) return nullptr;
    const double r = 1.0 / std::sqrt(2.0);
    if (b->op == BinaryOp::Mul && is_const(b->b, r)) return b->a;
    if (b->op == BinaryOp::Mul && is_const(b->a, r)) return b->b;
    if (b->op == BinaryOp::Div && is_const(b->b, std::sqrt(2.0))) return b->a;
    return nullptr;
}

// 1 + erf(x / sqrt 2) (either order) -> x.
Expr one_plus_erf(const Expr& e) {
    auto* b = e->as<BinaryNode>();
    if (!b || b->op != BinaryOp::Add || !is_f32(e)) return nullptr;
    if (is_const(b->a, 1.0)) return erf_scaled_arg(b->b);
    if (is_const(b->b, 1.0)) return erf_scaled_arg(b->a);
    return nullptr;
}

struct Rewriter : IRMutator {
    Expr visit_Binary(const BinaryNode& n, const Expr& e) override {
        Expr m = IRMutator::visit_Binary(n, e);
        Expr g = match_gelu_erf(m);
        return g ? g : m;
    }
};

}  // namespace

Expr match_gelu_erf(const Expr& e) {
    if (!is_f32(e)) return nullptr;
    auto* top = e->as<BinaryNode>();
    if (!top || (top->op != BinaryOp::Mul && top->op != BinaryOp::Div)) return nullptr;
    std::vector<Expr> fs;
    int halves = 0;
    factors(e, fs, halves);
    // Exactly {0.5, x, 1 + erf(x / sqrt 2)}, the 0.5 possibly as a division by 2.
    if (fs.size() != 3 - size_t(halves) || halves > 1) return nullptr;
    for (size_t k = 0; k < fs.size(); ++k) {
        Expr x = one_plus_erf(fs[k]);
        if (!x || !is_f32(x)) continue;
        bool have_half = halves == 1, have_x = false;
        for (size_t o = 0; o < fs.size(); ++o) {
            if (o == k) continue;
            if (!have_half && is_const(fs[o], 0.5)) have_half = true;
            else if (!have_x && same_expr(fs[o], x)) have_x = true;
        }
        if (have_half && have_x) return make_call("gelu_erf", {x}, DataType::float32(), e->span);
    }
    return nullptr;
}

PrimFuncPtr math_idioms(const PrimFuncPtr& func) {
    Rewriter r;
    return mutate_func(func, r);
}

}  // namespace tp::transform
