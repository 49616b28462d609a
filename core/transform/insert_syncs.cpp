// insert_syncs (see insert_syncs.h).
#include "transform/insert_syncs.h"

#include <set>

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

bool block_shared(const Buffer& b) { return b->scope == Scope::Shared || b->scope == Scope::Fragment; }

struct SharedTouch : IRVisitor {
    bool found = false;
    void visit_buffer(const Buffer& b) override {
        if (b && block_shared(b)) found = true;
    }
};
bool touches_shared(const Stmt& s) {
    SharedTouch t;
    t.visit(s);
    return t.found;
}

struct ThreadDependent : IRVisitor {
    const std::set<const VarNode*>* thread_vars;
    bool found = false;
    void visit_Var(const VarNode& n, const Expr&) override {
        if (n.var_kind == VarKind::ThreadIdx || thread_vars->count(&n)) found = true;
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        // Per-thread storage makes a condition thread-dependent too.
        if (n.buffer->scope == Scope::Local || n.buffer->scope == Scope::Var) found = true;
        IRVisitor::visit_BufferLoad(n, e);
    }
};

Stmt sync_stmt(Span span) {
    return std::make_shared<EvaluateNode>(make_call("__syncthreads", {}, DataType::void_(), span), span);
}

bool is_sync(const Stmt& s) {
    auto* e = s ? s->as<EvaluateNode>() : nullptr;
    auto* c = e ? e->value->as<CallNode>() : nullptr;
    return c && c->op == "__syncthreads";
}

class SyncInserter : public IRMutator {
public:
    std::set<const VarNode*> thread_vars;

    bool thread_dependent(const Expr& e) {
        ThreadDependent t;
        t.thread_vars = &thread_vars;
        t.visit(e);
        return t.found;
    }
    Stmt unit(const Stmt& s) {
        if (!touches_shared(s)) return s;
        return make_seq({s, sync_stmt(s->span)});
    }

protected:
    Stmt visit_SeqStmt(const SeqStmtNode& n, const Stmt& s) override {
        std::vector<Stmt> out;
        for (const auto& c : n.seq) {
            Stmt m = mutate(c);
            for (const auto& piece : make_seq({m})->as<SeqStmtNode>() ? make_seq({m})->as<SeqStmtNode>()->seq : std::vector<Stmt>{m}) {
                if (is_sync(piece) && !out.empty() && is_sync(out.back())) continue;  // one barrier is enough
                out.push_back(piece);
            }
        }
        return make_seq(std::move(out), n.span);
    }
    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        if (n.for_kind == ForKind::Parallel) return unit(s);
        return IRMutator::visit_For(n, s);
    }
    Stmt visit_BufferStore(const BufferStoreNode&, const Stmt& s) override { return unit(s); }
    Stmt visit_Evaluate(const EvaluateNode&, const Stmt& s) override { return unit(s); }
    Stmt visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override {
        if (thread_dependent(n.cond)) return unit(s);
        return IRMutator::visit_IfThenElse(n, s);
    }
    Stmt visit_While(const WhileNode& n, const Stmt& s) override {
        if (thread_dependent(n.cond)) return unit(s);
        return IRMutator::visit_While(n, s);
    }
    Stmt visit_LetStmt(const LetStmtNode& n, const Stmt& s) override {
        if (thread_dependent(n.value)) thread_vars.insert(n.var.get());
        return IRMutator::visit_LetStmt(n, s);
    }
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        for (const auto& v : n.thread_vars) thread_vars.insert(v.get());
        return IRMutator::visit_KernelLaunch(n, s);
    }
    Stmt visit_PrintOp(const PrintOpNode&, const Stmt& s) override { return s; }  // codegen syncs around it
};

struct HasBlockShared : IRVisitor {
    bool found = false;
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        if (block_shared(n.buffer)) found = true;
        IRVisitor::visit_Allocate(n, s);
    }
};

}  // namespace

PrimFuncPtr insert_syncs(const PrimFuncPtr& func) {
    HasBlockShared h;
    h.visit(func->body);
    if (!h.found) return func;  // global-only kernels need no barriers
    SyncInserter s;
    return mutate_func(func, s);
}

}  // namespace tp::transform
