// check_thread_branches (see check_thread_branches.h): one walk that knows which variables hold
// the thread index (the launch's thread variables and names bound from them) and how many
// branches on them enclose the current statement.
#include "transform/check_thread_branches.h"

#include <set>
#include <string>

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

class ThreadBranches : public IRVisitor {
public:
    explicit ThreadBranches(DiagnosticEngine& d) : diags_(d) {}
    bool ok = true;

protected:
    void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        for (const auto& v : n.thread_vars) thread_vars_.insert(v.get());
        IRVisitor::visit_KernelLaunch(n, s);
    }
    void visit_LetStmt(const LetStmtNode& n, const Stmt& s) override {
        if (uses_thread(n.value)) thread_vars_.insert(n.var.get());  // `warp = tx // 32`
        IRVisitor::visit_LetStmt(n, s);
    }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override {
        if (!uses_thread(n.cond)) return IRVisitor::visit_IfThenElse(n, s);
        visit(n.cond);
        int saved = branch_line_;
        branch_line_ = static_cast<int>(n.span.begin.line);
        visit(n.then_case);
        visit(n.else_case);
        branch_line_ = saved;
    }
    void visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        refuse("T.gemm", n.span);
        IRVisitor::visit_GemmOp(n, s);
    }

private:
    DiagnosticEngine& diags_;
    std::set<const VarNode*> thread_vars_;
    int branch_line_ = 0;  // line of the innermost enclosing branch on the thread index; 0: none

    bool uses_thread(const Expr& e) const {
        struct Uses : IRVisitor {
            const std::set<const VarNode*>* vars = nullptr;
            bool found = false;
            void visit_Var(const VarNode& v, const Expr&) override { found = found || vars->count(&v); }
        } u;
        u.vars = &thread_vars_;
        u.visit(e);
        return u.found;
    }
    void refuse(const std::string& op, const Span& at) {
        if (branch_line_ == 0) return;
        ok = false;
        diags_.report(DiagKind::NotYetLowered, at,
                      {op + " under the branch on the thread index at line " + std::to_string(branch_line_) +
                           " (a warp role split by hand: its warp partition spans every warp of the block, so only part of "
                           "it would run; `with T.ws(...)` roles lower, and the CPU interpreter runs it as written)",
                       "CUDA"});
    }
};

}  // namespace

bool check_thread_branches(const PrimFunc& func, DiagnosticEngine& diags) {
    ThreadBranches t(diags);
    t.visit(func.body);
    return t.ok;
}

}  // namespace tp::transform
