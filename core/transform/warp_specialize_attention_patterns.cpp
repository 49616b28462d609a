// Small IR pattern checks for the FlashAttention matcher (warp_specialize_attention_match.cpp):
// each answers one question about an expression or statement so the matcher reads as a list of
// the kernel's statements. Declared and described in warp_specialize_attention_internal.h.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "transform/warp_specialize_attention_internal.h"

namespace tp::transform::ws_attention {

std::optional<Lin> lin(const Expr& e, const Lets& lets) {
    if (auto i = as_const_int(e)) return Lin{{}, *i};
    if (auto* v = e->as<VarNode>()) {
        auto it = lets.find(v);
        if (it != lets.end()) return lin(it->second, lets);
        return Lin{{{v, 1}}, 0};
    }
    auto* b = e->as<BinaryNode>();
    if (!b) return std::nullopt;
    auto x = lin(b->a, lets), y = lin(b->b, lets);
    if (!x || !y) return std::nullopt;
    auto add = [](Lin a, const Lin& o, int64_t s) {
        for (auto [v, c] : o.c)
            if ((a.c[v] += s * c) == 0) a.c.erase(v);
        a.k += s * o.k;
        return a;
    };
    if (b->op == BinaryOp::Add) return add(*x, *y, 1);
    if (b->op == BinaryOp::Sub) return add(*x, *y, -1);
    if (b->op == BinaryOp::Mul && (x->c.empty() || y->c.empty())) {
        const Lin& s = x->c.empty() ? *y : *x;
        const int64_t m = x->c.empty() ? x->k : y->k;
        return add(Lin{}, s, m);
    }
    return std::nullopt;
}
Lin var_times(const Var& v, int64_t c) { return Lin{{{v.get(), c}}, 0}; }
bool lin_is(const Expr& e, const Lets& lets, const Lin& want) {
    auto l = lin(e, lets);
    return l && *l == want;
}

std::optional<int64_t> eval_int(const Expr& e, const Lets& lets, const std::map<const VarNode*, int64_t>& env) {
    if (auto i = as_const_int(e)) return *i;
    if (auto* v = e->as<VarNode>()) {
        if (auto it = env.find(v); it != env.end()) return it->second;
        if (auto it = lets.find(v); it != lets.end()) return eval_int(it->second, lets, env);
        return std::nullopt;
    }
    if (auto* c = e->as<CastNode>(); c && c->dtype.is_int()) return eval_int(c->value, lets, env);
    auto* b = e->as<BinaryNode>();
    if (!b) return std::nullopt;
    auto x = eval_int(b->a, lets, env), y = eval_int(b->b, lets, env);
    if (!x || !y) return std::nullopt;
    auto floordiv = [](int64_t a, int64_t d) { return a / d - ((a % d != 0) && ((a < 0) != (d < 0))); };
    switch (b->op) {
        case BinaryOp::Add: return *x + *y;
        case BinaryOp::Sub: return *x - *y;
        case BinaryOp::Mul: return *x * *y;
        case BinaryOp::Min: return std::min(*x, *y);
        case BinaryOp::Max: return std::max(*x, *y);
        case BinaryOp::FloorDiv: return *y == 0 ? std::nullopt : std::optional<int64_t>(floordiv(*x, *y));
        case BinaryOp::FloorMod: return *y == 0 ? std::nullopt : std::optional<int64_t>(*x - floordiv(*x, *y) * *y);
        case BinaryOp::Div: return *y == 0 ? std::nullopt : std::optional<int64_t>(*x / *y);
        default: return std::nullopt;
    }
}

bool is_zero(const Expr& e) {
    auto f = as_const_float(e);
    auto i = as_const_int(e);
    return (f && *f == 0.0) || (i && *i == 0);
}
bool is_neg_inf(const Expr& e) {
    if (auto f = as_const_float(e)) return std::isinf(*f) && *f < 0;
    auto* u = e->as<UnaryNode>();
    if (!u || u->op != UnaryOp::Neg) return false;
    if (auto f = as_const_float(u->a)) return std::isinf(*f) && *f > 0;
    auto* c = u->a->as<CallNode>();
    return c && c->op == "infinity";
}

bool load_of(const Expr& e, const Buffer& b, const std::vector<Var>& idx) {
    auto* l = e->as<BufferLoadNode>();
    if (!l || l->buffer != b || l->indices.size() != idx.size()) return false;
    for (size_t i = 0; i < idx.size(); ++i)
        if (l->indices[i] != idx[i]) return false;
    return true;
}
bool mul_of(const Expr& e, const std::function<bool(const Expr&)>& p, const std::function<bool(const Expr&)>& q) {
    auto* b = e->as<BinaryNode>();
    return b && b->op == BinaryOp::Mul && ((p(b->a) && q(b->b)) || (p(b->b) && q(b->a)));
}
bool scaled_load(const Expr& e, const Buffer& b, const std::vector<Var>& idx, std::optional<double>& scale) {
    std::optional<double> c;
    bool ok = mul_of(e, [&](const Expr& x) { return load_of(x, b, idx); },
                     [&](const Expr& x) { return (c = as_const_float(x)).has_value(); });
    if (!ok || !std::isfinite(*c) || *c <= 0) return false;
    if (scale && *scale != *c) return false;
    scale = c;
    return true;
}
bool exp2_diff(const Expr& e, const Buffer& a, const std::vector<Var>& ia, const Buffer& b, const std::vector<Var>& ib,
               std::optional<double>& scale) {
    auto* c = e->as<CallNode>();
    if (!c || c->op != "exp2" || c->args.size() != 1) return false;
    auto* d = c->args[0]->as<BinaryNode>();
    return d && d->op == BinaryOp::Sub && scaled_load(d->a, a, ia, scale) && scaled_load(d->b, b, ib, scale);
}

const BufferStoreNode* parallel_store(const Stmt& s, const std::vector<int64_t>& extents, std::vector<Var>& vars) {
    vars.clear();
    Stmt cur = s;
    for (int64_t ext : extents) {
        auto* f = cur->as<ForNode>();
        if (!f || f->for_kind != ForKind::Parallel || !is_zero(f->min) || as_const_int(f->extent) != ext) return nullptr;
        vars.push_back(f->loop_var);
        cur = f->body;
        while (auto* q = cur->as<SeqStmtNode>()) {
            if (q->seq.size() != 1) return nullptr;
            cur = q->seq[0];
        }
    }
    auto* st = cur->as<BufferStoreNode>();
    if (!st || st->indices.size() != vars.size()) return nullptr;
    for (size_t i = 0; i < vars.size(); ++i)
        if (st->indices[i] != vars[i]) return nullptr;
    return st;
}

bool whole(const BufferRegion& r) {
    if (r.region.size() != r.buffer->shape.size()) return false;
    for (size_t i = 0; i < r.region.size(); ++i)
        if (!is_zero(r.region[i].min) || as_const_int(r.region[i].extent) != as_const_int(r.buffer->shape[i])) return false;
    return true;
}
bool shape_is(const Buffer& b, std::vector<int64_t> want, Scope scope, DataType t) {
    if (b->scope != scope || b->dtype != t || b->shape.size() != want.size()) return false;
    for (size_t i = 0; i < want.size(); ++i)
        if (as_const_int(b->shape[i]) != want[i]) return false;
    return true;
}

void flatten(const Stmt& s, std::vector<Stmt>& out, Lets& lets) {
    if (!s) return;
    if (auto* q = s->as<SeqStmtNode>()) {
        for (const auto& c : q->seq) flatten(c, out, lets);
        return;
    }
    if (auto* l = s->as<LetStmtNode>()) {  // `loop_range = ...`: keep the binding, walk on
        lets[l->var.get()] = l->value;
        flatten(l->body, out, lets);
        return;
    }
    out.push_back(s);
}

}  // namespace tp::transform::ws_attention
