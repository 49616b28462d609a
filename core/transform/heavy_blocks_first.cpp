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

// Every loop extent of a body that names `var`, its lets inlined (an extent is often a let's name).
struct ExtentsNaming : IRVisitor {
    const VarNode* var = nullptr;
    std::vector<Expr> found;
    std::map<const VarNode*, Expr> lets;  // bindings in scope
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
        Expr extent = in.mutate(f.extent);
        Uses u;
        u.var = var;
        u.visit(extent);
        if (u.found) found.push_back(extent);
        IRVisitor::visit_For(f, s);
    }
};

// Whether one of the extents provably grows with `var` over [0, last]: constant at var = 0, mid
// and last, increasing from 0 to last without a dip in between. Extents that also name other
// variables (an inner loop's bound over the outer one) leave the order alone.
bool grows_with(const std::vector<Expr>& extents, const VarNode* var, int64_t last) {
    bool grows = false;
    for (const auto& e : extents) {
        auto a = extent_at(e, var, 0), m = extent_at(e, var, last / 2), b = extent_at(e, var, last);
        if (!a || !m || !b || *a > *b) return false;
        if (*a < *b && *a <= *m && *m <= *b) grows = true;
    }
    return grows;
}

class Reorder : public IRMutator {
protected:
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        Stmt body = n.body;
        bool changed = false;
        for (size_t i = 0; i < n.block_vars.size() && i < n.grid.size(); ++i) {
            auto g = as_const_int(n.grid[i]);
            if (!g || *g < 2) continue;
            if (!grows_with(extents_naming(body, n.block_vars[i].get()), n.block_vars[i].get(), *g - 1)) continue;
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

std::vector<Expr> extents_naming(const Stmt& body, const VarNode* var) {
    ExtentsNaming ex;
    ex.var = var;
    ex.visit(body);
    return ex.found;
}

std::optional<int64_t> extent_at(const Expr& extent, const VarNode* var, int64_t value) {
    return as_const_int(simplify_expr(substitute(extent, var, int_imm(value, var->dtype))));
}

PrimFuncPtr heavy_blocks_first(const PrimFuncPtr& func) {
    Reorder r;
    return mutate_func(func, r);
}

}  // namespace tp::transform
