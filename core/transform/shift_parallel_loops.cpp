// shift_parallel_loops (see shift_parallel_loops.h).
#include "transform/shift_parallel_loops.h"

#include <algorithm>
#include <map>
#include <optional>

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

using Ranges = std::map<const VarNode*, std::pair<int64_t, int64_t>>;

// Whether `e` reads any of the nest's variables.
bool reads_any(const Expr& e, const Ranges& vars) {
    struct R : IRVisitor {
        const Ranges* vars;
        bool hit = false;
        void visit_Var(const VarNode& n, const Expr&) override { hit |= vars->count(&n) > 0; }
    } r;
    r.vars = &vars;
    r.visit(e);
    return r.hit;
}

// The smallest and largest value of an integer expression over the enclosing loops' ranges.
std::optional<std::pair<int64_t, int64_t>> bounds(const Expr& e, const Ranges& loops) {
    if (auto c = as_const_int(e)) return std::make_pair(*c, *c);
    if (auto* v = e->as<VarNode>()) {
        auto it = loops.find(v);
        return it == loops.end() ? std::nullopt : std::optional(it->second);
    }
    auto* b = e->as<BinaryNode>();
    if (!b) return std::nullopt;
    auto x = bounds(b->a, loops), y = bounds(b->b, loops);
    if (!x || !y) return std::nullopt;
    switch (b->op) {
        case BinaryOp::Add:
            return std::make_pair(x->first + y->first, x->second + y->second);
        case BinaryOp::Sub:
            return std::make_pair(x->first - y->second, x->second - y->first);
        case BinaryOp::Mul: {
            int64_t p[] = {x->first * y->first, x->first * y->second, x->second * y->first, x->second * y->second};
            return std::make_pair(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
        }
        default:
            return std::nullopt;
    }
}

// `v`, `v + o`, `o + v` or `v - c` over one of the nest's variables, `o` free of them.
std::optional<std::pair<const VarNode*, Expr>> var_plus_offset(const Expr& e, const Ranges& nest) {
    if (auto* v = e->as<VarNode>(); v && nest.count(v)) return std::make_pair(v, int_imm(0, v->dtype));
    auto* b = e->as<BinaryNode>();
    if (!b || (b->op != BinaryOp::Add && b->op != BinaryOp::Sub)) return std::nullopt;
    auto* va = b->a->as<VarNode>();
    auto* vb = b->b->as<VarNode>();
    if (va && nest.count(va) && !reads_any(b->b, nest)) {
        if (b->op == BinaryOp::Add) return std::make_pair(va, b->b);
        if (auto c = as_const_int(b->b)) return std::make_pair(va, int_imm(-*c, va->dtype));
        return std::nullopt;
    }
    if (vb && nest.count(vb) && b->op == BinaryOp::Add && !reads_any(b->a, nest)) return std::make_pair(vb, b->a);
    return std::nullopt;
}

// The offset each nest variable carries in every fragment access, when all of them index a
// fragment dimension as long as the loop with (variable + offset), the same offset (as
// printed) for a variable everywhere.
struct Offsets : IRVisitor {
    Ranges nest;  // variable -> [0, extent - 1]
    std::map<const VarNode*, Expr> offset;
    bool ok = true, any = false;

    void access(const Buffer& b, const std::vector<Expr>& idx) {
        if (b->scope != Scope::Fragment) return;
        any = true;
        if (idx.size() != b->shape.size()) ok = false;
        for (size_t k = 0; ok && k < idx.size(); ++k) {
            auto vo = var_plus_offset(idx[k], nest);
            auto dim = as_const_int(b->shape[k]);
            if (!vo || !dim || *dim != nest[vo->first].second + 1) {
                ok = false;
                break;
            }
            auto [it, fresh] = offset.emplace(vo->first, vo->second);
            if (!fresh && print(it->second) != print(vo->second)) ok = false;
        }
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        access(n.buffer, n.indices);
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        access(n.buffer, n.indices);
        IRVisitor::visit_BufferStore(n, s);
    }
};

// Whether the conjunction `cond` keeps `v + o` inside [0, extent) for every v it admits, o in
// [lo, hi]: `v < K` (or `v <= K - 1`) with lo >= 0 and K + hi <= extent, or `v >= K` with
// hi <= 0 and K + lo >= 0.
bool guard_keeps_inside(const Expr& cond, const VarNode* v, int64_t lo, int64_t hi, int64_t extent) {
    auto* b = cond->as<BinaryNode>();
    if (!b) return false;
    if (b->op == BinaryOp::And) return guard_keeps_inside(b->a, v, lo, hi, extent) || guard_keeps_inside(b->b, v, lo, hi, extent);
    if (b->a->as<VarNode>() != v) return false;
    auto k = as_const_int(b->b);
    if (!k) return false;
    if (lo >= 0 && b->op == BinaryOp::LT) return *k + hi <= extent;
    if (lo >= 0 && b->op == BinaryOp::LE) return *k + 1 + hi <= extent;
    if (hi <= 0 && b->op == BinaryOp::GE) return *k + lo >= 0;
    return false;
}

// Rewrites a nest's body for the shifted variables: a fragment index `v + o` becomes `u`, any
// other use of `v` becomes `u - o`.
struct Renumber : IRMutator {
    std::map<const VarNode*, std::pair<Var, Expr>> shift;  // v -> (u, o)
    Ranges nest;

    Expr visit_Var(const VarNode& n, const Expr& e) override {
        auto it = shift.find(&n);
        if (it == shift.end()) return e;
        return make_binary(BinaryOp::Sub, it->second.first, it->second.second);
    }
    std::vector<Expr> fragment_indices(const Buffer& b, const std::vector<Expr>& idx) {
        std::vector<Expr> out;
        for (const auto& i : idx) {
            auto vo = b->scope == Scope::Fragment ? var_plus_offset(i, nest) : std::nullopt;
            auto it = vo ? shift.find(vo->first) : shift.end();
            out.push_back(it != shift.end() ? Expr(it->second.first) : mutate(i));
        }
        return out;
    }
    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr&) override {
        return std::make_shared<BufferLoadNode>(n.buffer, fragment_indices(n.buffer, n.indices), n.span);
    }
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt&) override {
        return std::make_shared<BufferStoreNode>(n.buffer, fragment_indices(n.buffer, n.indices), mutate(n.value), n.span);
    }
};

class Shifter : public IRMutator {
protected:
    Ranges loops_;  // enclosing loops with constant bounds: the values their variables take

    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        if (n.for_kind == ForKind::Parallel) {
            if (Stmt out = shift_nest(s)) return out;
            return s;  // a nest's body holds no further T.Parallel nests to shift
        }
        auto lo = as_const_int(n.min), ext = as_const_int(n.extent);
        if (lo && ext && *ext > 0) loops_[n.loop_var.get()] = {*lo, *lo + *ext - 1};
        Stmt out = IRMutator::visit_For(n, s);
        loops_.erase(n.loop_var.get());
        return out;
    }

    // The nest at `s` renumbered, or null when it does not apply.
    Stmt shift_nest(const Stmt& s) const {
        std::vector<const ForNode*> loops;
        Stmt body = s;
        while (auto* f = body->as<ForNode>()) {
            if (f->for_kind != ForKind::Parallel) break;
            loops.push_back(f);
            body = f->body;
        }
        auto* guard = body->as<IfThenElseNode>();
        if (!guard || guard->else_case) return nullptr;
        Offsets off;
        for (const auto* f : loops) {
            auto e = as_const_int(f->extent);
            if (as_const_int(f->min) != std::optional<int64_t>(0) || !e || *e <= 0) return nullptr;
            off.nest[f->loop_var.get()] = {0, *e - 1};
        }
        off.visit(guard->then_case);
        Offsets in_cond;  // the guard itself runs for every iteration: no fragment in it
        in_cond.nest = off.nest;
        in_cond.visit(guard->cond);
        if (!off.ok || !off.any || in_cond.any) return nullptr;
        Renumber rn;
        rn.nest = off.nest;
        Expr domain;  // the original loop range of each shifted variable, now in terms of u
        for (const auto& [v, o] : off.offset) {
            auto r = bounds(o, loops_);
            if (!r) return nullptr;
            if (r->first == 0 && r->second == 0) continue;
            const int64_t extent = off.nest[v].second + 1;
            if (!guard_keeps_inside(guard->cond, v, r->first, r->second, extent)) return nullptr;
            Var u = std::make_shared<VarNode>(v->name, v->dtype, v->var_kind, v->span);
            rn.shift[v] = {u, o};
            Expr old = make_binary(BinaryOp::Sub, u, o);
            Expr in =
                r->first >= 0 ? make_binary(BinaryOp::GE, old, int_imm(0, v->dtype)) : make_binary(BinaryOp::LT, old, int_imm(extent, v->dtype));
            domain = domain ? make_binary(BinaryOp::And, domain, in) : in;
        }
        if (rn.shift.empty()) return nullptr;
        Expr cond = make_binary(BinaryOp::And, domain, rn.mutate(guard->cond));
        Stmt out = std::make_shared<IfThenElseNode>(cond, rn.mutate(guard->then_case), nullptr, guard->span);
        for (size_t k = loops.size(); k-- > 0;) {
            auto f = std::make_shared<ForNode>(*loops[k]);
            if (auto it = rn.shift.find(loops[k]->loop_var.get()); it != rn.shift.end()) f->loop_var = it->second.first;
            f->body = out;
            out = f;
        }
        return out;
    }
};

}  // namespace

PrimFuncPtr shift_parallel_loops(const PrimFuncPtr& func) {
    if (!func) return func;
    Shifter m;
    return mutate_func(func, m);
}

}  // namespace tp::transform
