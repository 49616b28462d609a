// lower_roles (see lower_roles.h).
#include "transform/lower_roles.h"

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

class HasBarriers : public IRVisitor {
public:
    bool found = false;
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        found |= n.buffer->scope == Scope::Barrier;
        IRVisitor::visit_Allocate(n, s);
    }
};

class HasRoles : public IRVisitor {
public:
    bool found = false;
    void visit_RoleBlock(const RoleBlockNode&, const Stmt&) override { found = true; }
};

// Code of a role that reads the thread index (thread-level code such as `if tx == 128:` or
// `buf[tx - 128]`) means the role's own threads; run by the whole block it would not.
class ReadsThreadIndex : public IRVisitor {
public:
    bool found = false;
    void visit_Var(const VarNode& n, const Expr& e) override {
        found |= n.var_kind == VarKind::ThreadIdx;
        IRVisitor::visit_Var(n, e);
    }
};

class RoleLowerer : public IRMutator {
public:
    explicit RoleLowerer(DiagnosticEngine& d) : diags(d) {}
    DiagnosticEngine& diags;

protected:
    Expr tid;  // the block's linear thread index
    const RoleBlockNode* role = nullptr;

    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        if (n.thread_vars.empty()) return s;
        tid = n.thread_vars[0];
        int64_t stride = n.threads[0];
        for (size_t i = 1; i < n.thread_vars.size() && i < n.threads.size(); ++i) {
            tid = make_binary(BinaryOp::Add, tid, make_binary(BinaryOp::Mul, n.thread_vars[i], int_imm(stride)));
            stride *= n.threads[i];
        }
        return IRMutator::visit_KernelLaunch(n, s);
    }

    Stmt visit_RoleBlock(const RoleBlockNode& n, const Stmt& s) override {
        ReadsThreadIndex reads;
        reads.visit(n.body);
        if (reads.found) {
            diags.report(DiagKind::NotYetLowered, n.span, {"T.ws role that reads the thread index (roles run on the whole block here)", "CUDA"});
            return s;
        }
        diags.report(DiagKind::FastPathNotTaken, n.span,
                     {"warp specialisation of this `T.ws` role",
                      "its tile ops run on all the block's threads in program order, its mbarrier arrivals on its own warp groups only",
                      "the kernel computes the same, without overlapping the roles"});
        const RoleBlockNode* saved = role;
        role = &n;
        Stmt body = mutate(n.body);
        role = saved;
        return body;
    }

    // Inside a role only its threads arrive: the counts the user gave are per role thread.
    // Waits and expect_tx stay for every thread (a wait only delays; expect_tx has no
    // lowering without TMA, which the code generator reports on its own).
    Stmt visit_BarrierOp(const BarrierOpNode& n, const Stmt& s) override {
        if (!role || n.barrier_kind == BarrierKind::Wait || n.barrier_kind == BarrierKind::ExpectTx) return s;
        Expr lo = int_imm(role->first_thread()), hi = int_imm(role->first_thread() + role->num_threads());
        Expr in_role = make_binary(BinaryOp::And, make_binary(BinaryOp::GE, tid, lo), make_binary(BinaryOp::LT, tid, hi));
        return std::make_shared<IfThenElseNode>(in_role, s, nullptr, n.span);
    }

    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        Stmt out = IRMutator::visit_For(n, s);
        if (n.for_kind != ForKind::Pipelined) return out;
        HasRoles roles;
        roles.visit(n.body);
        if (!roles.found) return out;
        diags.report(DiagKind::FastPathNotTaken, n.span,
                     {"the software pipeline of this T.Pipelined loop", "its `T.ws` roles synchronise the stages through mbarriers",
                      "the loop runs as written"});
        auto f = std::make_shared<ForNode>(*out->as<ForNode>());
        f->for_kind = ForKind::Serial;
        f->num_stages = 0;
        f->order.clear();
        f->stage.clear();
        f->group.clear();
        return f;
    }
};

}  // namespace

PrimFuncPtr lower_roles(const PrimFuncPtr& func, DiagnosticEngine& diags) {
    if (!func) return func;
    RoleLowerer m(diags);
    PrimFuncPtr out = mutate_func(func, m);
    HasBarriers b;
    b.visit(out->body);
    if (!b.found) return out;
    auto f = std::make_shared<PrimFunc>(*out);
    f->attrs["tp.user_barriers"] = "true";
    return f;
}

}  // namespace tp::transform
