// heavy_blocks_first (see heavy_blocks_first.h).
#include "transform/heavy_blocks_first.h"

#include <map>
#include <optional>

#include "ir/functor.h"
#include "transform/simplify.h"

namespace tp::transform {

using namespace ir;

namespace {

struct Substitute : IRMutator {
    const VarNode* var = nullptr;
    Expr value;
    Expr visit_Var(const VarNode& n, const Expr& e) override { return &n == var ? value : e; }
};

Expr substitute(const Expr& e, const VarNode* var, Expr value) {
    Substitute s;
    s.var = var;
    s.value = std::move(value);
    return s.mutate(e);
}

struct Uses : IRVisitor {
    const VarNode* var = nullptr;
    bool found = false;
    void visit_Var(const VarNode& n, const Expr&) override { found |= &n == var; }
};

// The loops' extents that name `var`, and whether one of them provably grows with it: constant
// at var = 0, mid and last, increasing from 0 to last without a dip in between. Extents that
// also name other variables (an inner loop's bound over the outer one) do not count.
struct Extents : IRVisitor {
    const VarNode* var = nullptr;
    int64_t last = 0;
    bool grows = false, shrinks = false;
    std::map<const VarNode*, Expr> lets;  // bindings in scope: an extent is often a let's name
    struct Inline : IRMutator {
        const std::map<const VarNode*, Expr>* lets = nullptr;
        int depth = 0;
        Expr visit_Var(const VarNode& n, const Expr& e) override {
            auto it = lets->find(&n);
            if (it == lets->end() || depth > 8) return e;
            ++depth;
            Expr v = mutate(it->second);
            --depth;
            return v;
        }
    };
    void visit_LetStmt(const LetStmtNode& n, const Stmt& s) override {
        lets[n.var.get()] = n.value;
        IRVisitor::visit_LetStmt(n, s);
    }
    void visit_For(const ForNode& f, const Stmt& s) override {
        Inline in;
        in.lets = &lets;
        ForNode n = f;
        n.extent = in.mutate(f.extent);
        Uses u;
        u.var = var;
        u.visit(n.extent);
        if (u.found) {
            auto at = [&](int64_t v) { return as_const_int(simplify_expr(substitute(n.extent, var, int_imm(v, var->dtype)))); };
            auto a = at(0), m = at(last / 2), b = at(last);
            if (a && m && b) {
                if (*a < *b && *a <= *m && *m <= *b) grows = true;
                else if (*a > *b) shrinks = true;
            } else {
                shrinks = true;  // unknown: leave the order alone
            }
        }
        IRVisitor::visit_For(f, s);
    }
};

class Reorder : public IRMutator {
protected:
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        Stmt body = n.body;
        bool changed = false;
        for (size_t i = 0; i < n.block_vars.size() && i < n.grid.size(); ++i) {
            auto g = as_const_int(n.grid[i]);
            if (!g || *g < 2) continue;
            Extents ex;
            ex.var = n.block_vars[i].get();
            ex.last = *g - 1;
            ex.visit(body);
            if (!ex.grows || ex.shrinks) continue;
            const Var& v = n.block_vars[i];
            Expr reversed = make_binary(BinaryOp::Sub, int_imm(*g - 1, v->dtype), v, n.span);
            Substitute sub;
            sub.var = v.get();
            sub.value = reversed;
            body = sub.mutate(body);
            changed = true;
        }
        if (!changed) return s;
        return std::make_shared<KernelLaunchNode>(n.grid, n.block_vars, n.threads, n.thread_vars, body, n.span);
    }
};

}  // namespace

PrimFuncPtr heavy_blocks_first(const PrimFuncPtr& func) {
    Reorder r;
    return mutate_func(func, r);
}

}  // namespace tp::transform
