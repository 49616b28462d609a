// Only indices that are affine in loop variables of constant range (each variable once, after
// merging terms) are judged: their extreme values are then attained by some iteration, so a
// reported access really happens. Anything else (block or thread indices, data-dependent
// values, min/max, division) is left to the interpreter's run-time check, as are accesses
// under an `if`, a while loop or inside a T.if_then_else arm, which may never execute.
#include "transform/check_bounds.h"

#include <map>
#include <optional>
#include <set>

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

struct Affine {
    int64_t c = 0;
    std::map<const VarNode*, int64_t> terms;  // coefficient per loop variable
};

struct Range {
    int64_t lo, hi;  // inclusive
};

class BoundsChecker : public IRVisitor {
public:
    explicit BoundsChecker(DiagnosticEngine& d) : diags(d) {}
    DiagnosticEngine& diags;
    bool failed = false;

    void visit_For(const ForNode& n, const Stmt& s) override {
        auto mn = as_const_int(n.min), ext = as_const_int(n.extent);
        visit(n.min);
        visit(n.extent);
        if (mn && ext && *ext > 0) ranges[n.loop_var.get()] = {*mn, *mn + *ext - 1};
        visit(n.body);
        ranges.erase(n.loop_var.get());
        (void)s;
    }
    void visit_While(const WhileNode& n, const Stmt&) override {
        visit(n.cond);
        ++conditional;
        visit(n.body);
        --conditional;
    }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt&) override {
        visit(n.cond);
        ++conditional;
        visit(n.then_case);
        if (n.else_case) visit(n.else_case);
        --conditional;
    }
    void visit_LetStmt(const LetStmtNode& n, const Stmt&) override {
        visit(n.value);
        if (auto a = affine(n.value)) lets[n.var.get()] = *a;
        visit(n.body);
        lets.erase(n.var.get());
    }
    void visit_Select(const SelectNode& n, const Expr&) override {
        visit(n.cond);
        ++conditional;
        visit(n.true_value);
        visit(n.false_value);
        --conditional;
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        check(n.buffer, n.indices, n.span, "write");
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        check(n.buffer, n.indices, n.span, "read");
        IRVisitor::visit_BufferLoad(n, e);
    }

private:
    std::map<const VarNode*, Range> ranges;
    std::map<const VarNode*, Affine> lets;
    std::set<std::pair<uint32_t, uint32_t>> reported;  // one error per DSL access (line, column)
    int conditional = 0;

    std::optional<Affine> affine(const Expr& e) const {
        if (auto c = as_const_int(e)) return Affine{*c, {}};
        if (auto* v = e->as<VarNode>()) {
            if (auto it = lets.find(v); it != lets.end()) return it->second;
            if (!ranges.count(v)) return std::nullopt;
            Affine a;
            a.terms[v] = 1;
            return a;
        }
        if (auto* c = e->as<CastNode>()) return c->dtype.is_int() ? affine(c->value) : std::nullopt;
        auto* b = e->as<BinaryNode>();
        if (!b || (b->op != BinaryOp::Add && b->op != BinaryOp::Sub && b->op != BinaryOp::Mul)) return std::nullopt;
        auto x = affine(b->a), y = affine(b->b);
        if (!x || !y) return std::nullopt;
        if (b->op == BinaryOp::Mul) {
            if (!x->terms.empty() && !y->terms.empty()) return std::nullopt;
            const Affine& k = x->terms.empty() ? *x : *y;
            Affine r = x->terms.empty() ? *y : *x;
            r.c *= k.c;
            for (auto& [v, coef] : r.terms) coef *= k.c;
            return r;
        }
        const int64_t sign = b->op == BinaryOp::Sub ? -1 : 1;
        x->c += sign * y->c;
        for (const auto& [v, coef] : y->terms) x->terms[v] += sign * coef;
        return x;
    }

    std::optional<Range> range_of(const Expr& e) const {
        auto a = affine(e);
        if (!a) return std::nullopt;
        Range r{a->c, a->c};
        for (const auto& [v, coef] : a->terms) {
            const Range& vr = ranges.at(v);
            r.lo += coef >= 0 ? coef * vr.lo : coef * vr.hi;
            r.hi += coef >= 0 ? coef * vr.hi : coef * vr.lo;
        }
        return r;
    }

    void check(const Buffer& buf, const std::vector<Expr>& idx, Span span, const char* what) {
        if (conditional > 0 || idx.size() != buf->shape.size()) return;
        if (buf->scope != Scope::Shared && buf->scope != Scope::Fragment && buf->scope != Scope::Local) return;
        for (size_t d = 0; d < idx.size(); ++d) {
            auto extent = as_const_int(buf->shape[d]);
            auto r = range_of(idx[d]);
            if (!extent || !r || (r->lo >= 0 && r->hi < *extent)) continue;
            if (!reported.insert({span.begin.line, span.begin.col}).second) return;
            std::string shape;
            for (size_t k = 0; k < buf->shape.size(); ++k) shape += (k ? ", " : "") + std::to_string(as_const_int(buf->shape[k]).value_or(-1));
            const int64_t bad = r->lo < 0 ? r->lo : r->hi;
            diags.report(DiagKind::StaticOutOfBounds, span,
                         {what, buf->name, "[" + shape + "]", std::to_string(bad), std::to_string(d), std::to_string(r->lo), std::to_string(r->hi)});
            failed = true;
            return;
        }
    }
};

}  // namespace

bool check_bounds(const PrimFunc& func, DiagnosticEngine& diags) {
    BoundsChecker c(diags);
    c.visit(func.body);
    return !c.failed;
}

}  // namespace tp::transform
