// insert_syncs (see insert_syncs.h).
#include "transform/insert_syncs.h"

#include <set>

#include "ir/functor.h"
#include "ops/access.h"

namespace tp::transform {

using namespace ir;

namespace {

using BufSet = std::set<const BufferNode*>;

// A cp.async copy (tp::copy_g2s, tp::cp_async) writes shared memory when a later cp_async_wait
// completes it, not where it is issued: a barrier between the two publishes nothing.
bool is_async_copy(const std::string& callee) { return callee.rfind("tp::copy_g2s<", 0) == 0 || callee == "tp::cp_async"; }

struct Effects : ops::OpAccessVisitor {
    BufSet reads, writes;
    BufSet async_writes;  // the part of `writes` that cp.async copies issue
    bool barrier = false;
    bool async_wait = false;  // a cp_async_wait: the copies issued before are complete here
    bool in_async = false;
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        if (n.buffer->scope == Scope::Shared) reads.insert(n.buffer.get());
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        if (n.buffer->scope == Scope::Shared) writes.insert(n.buffer.get());
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        if (n.op == "__syncthreads") barrier = true;
        // cp.async copies are published by the pipeline's wait + barrier; mbarrier and TMA
        // calls of a warp-specialized kernel synchronise through their barriers.
        if (n.op == "tp.call_async" || n.op == "tp.sync_call") return;
        if (n.op == "tp.call" && !n.args.empty()) {
            if (auto* callee = n.args[0]->as<StringImmNode>()) {
                async_wait |= callee->value.rfind("tp::cp_async_wait", 0) == 0;
                if (is_async_copy(callee->value)) {
                    in_async = true;
                    IRVisitor::visit_Call(n, e);
                    in_async = false;
                    return;
                }
            }
        }
        if (n.op == "tp.addr_w" || n.op == "atomic_add" || n.op == "atomic_add_prev") {
            if (auto* l = n.args.empty() ? nullptr : n.args[0]->as<BufferLoadNode>()) {
                if (l->buffer->scope == Scope::Shared && !l->buffer->self_ordered) {
                    writes.insert(l->buffer.get());
                    if (in_async) async_writes.insert(l->buffer.get());
                }
                for (const auto& i : l->indices) visit(i);
                for (size_t k = 1; k < n.args.size(); ++k) visit(n.args[k]);
                return;
            }
        }
        IRVisitor::visit_Call(n, e);
    }
    // The tile ops left here (T.print) order their own accesses when they are barriers; codegen
    // brackets a tile print with them.
    void on_op(const StmtNode&, const ops::OpAccess& a) override {
        if (a.barrier) {
            barrier = true;
            return;
        }
        for (const auto& r : a.reads)
            if (r.buffer->scope == Scope::Shared) reads.insert(r.buffer.get());
        for (const auto& w : a.writes)
            if (w.buffer->scope == Scope::Shared) writes.insert(w.buffer.get());
    }
};

struct ThreadDependent : IRVisitor {
    const std::set<const VarNode*>* thread_vars;
    const std::set<const BufferNode*>* divergent_vars;  // the T.alloc_vars that may differ
    bool found = false;
    void visit_Var(const VarNode& n, const Expr&) override {
        if (n.var_kind == VarKind::ThreadIdx || thread_vars->count(&n)) found = true;
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        // Local arrays are per-thread data; a T.alloc_var is per-thread storage too, but most
        // hold a value every thread computes alike (a persistent loop's tile index).
        if (n.buffer->scope == Scope::Local || (n.buffer->scope == Scope::Var && divergent_vars->count(n.buffer.get()))) found = true;
        IRVisitor::visit_BufferLoad(n, e);
    }
};

// The T.alloc_vars that may hold different values in different threads: those stored a
// thread-dependent value, or stored under thread-dependent control (a T.Parallel iteration,
// an if or while on a thread-dependent condition). Grown to a fixed point, since a store may
// read another variable. The rest are uniform, so a loop or branch on them is the same in
// every thread and can hold barriers (a `while tile < n:` persistent loop needs them).
struct DivergentVars : IRVisitor {
    std::set<const VarNode*> thread_vars;
    std::set<const BufferNode*> divergent;
    int divergent_depth = 0;
    bool changed = false;

    bool depends(const Expr& e) {
        ThreadDependent t;
        t.thread_vars = &thread_vars;
        t.divergent_vars = &divergent;
        t.visit(e);
        return t.found;
    }
    void under(bool divergent_control, const Stmt& body) {
        divergent_depth += divergent_control;
        visit(body);
        divergent_depth -= divergent_control;
    }
    void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        for (const auto& v : n.thread_vars) thread_vars.insert(v.get());
        IRVisitor::visit_KernelLaunch(n, s);
    }
    void visit_LetStmt(const LetStmtNode& n, const Stmt& s) override {
        if (depends(n.value)) thread_vars.insert(n.var.get());
        IRVisitor::visit_LetStmt(n, s);
    }
    void visit_For(const ForNode& n, const Stmt&) override { under(n.for_kind == ForKind::Parallel || depends(n.min) || depends(n.extent), n.body); }
    void visit_While(const WhileNode& n, const Stmt&) override { under(depends(n.cond), n.body); }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt&) override {
        const bool d = depends(n.cond);
        under(d, n.then_case);
        if (n.else_case) under(d, n.else_case);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        if (n.buffer->scope == Scope::Var && !divergent.count(n.buffer.get())) {
            bool d = divergent_depth > 0 || depends(n.value);
            for (const auto& i : n.indices) d = d || depends(i);
            if (d) {
                divergent.insert(n.buffer.get());
                changed = true;
            }
        }
        IRVisitor::visit_BufferStore(n, s);
    }
};

std::set<const BufferNode*> divergent_vars(const Stmt& body) {
    DivergentVars d;
    do {
        d.changed = false;
        d.thread_vars.clear();
        d.visit(body);
    } while (d.changed);
    return d.divergent;
}

struct HasNestedSteps : IRVisitor {
    bool found = false;
    void visit_For(const ForNode& n, const Stmt& s) override {
        found |= n.for_kind == ForKind::Parallel;
        IRVisitor::visit_For(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        found |= n.op == "tp.call" || n.op == "tp.call_async" || n.op == "tp.async_call";
        IRVisitor::visit_Call(n, e);
    }
};

Stmt sync_stmt(Span span) { return std::make_shared<EvaluateNode>(make_call("__syncthreads", {}, DataType::void_(), span), span); }

struct State {
    BufSet reads, writes;
    BufSet async;  // cp.async writes issued and not yet waited for: a barrier does not clear them
    void merge(const State& o) {
        reads.insert(o.reads.begin(), o.reads.end());
        writes.insert(o.writes.begin(), o.writes.end());
        async.insert(o.async.begin(), o.async.end());
    }
    void clear() {
        reads.clear();
        writes.clear();
    }
};

bool intersects(const BufSet& a, const BufSet& b) {
    for (auto* x : a)
        if (b.count(x)) return true;
    return false;
}

class SyncPlanner {
public:
    std::set<const VarNode*> thread_vars;
    std::set<const BufferNode*> divergent;

    bool thread_dependent(const Expr& e) {
        ThreadDependent t;
        t.thread_vars = &thread_vars;
        t.divergent_vars = &divergent;
        t.visit(e);
        return t.found;
    }

    // One indivisible step: a barrier before it when it conflicts with pending accesses.
    Stmt unit(const Stmt& s, State& st) {
        Effects e;
        e.visit(s);
        bool conflict = intersects(e.reads, st.writes) || intersects(e.writes, st.writes) || intersects(e.writes, st.reads);
        Stmt out = s;
        if (conflict) {
            out = make_seq({sync_stmt(s->span), s}, s->span);
            st.clear();
        }
        if (e.barrier) {
            st.clear();
        } else {
            st.reads.insert(e.reads.begin(), e.reads.end());
            st.writes.insert(e.writes.begin(), e.writes.end());
        }
        st.async.insert(e.async_writes.begin(), e.async_writes.end());
        if (e.async_wait) {
            // The copies land here: whatever a barrier since their issue seemed to order, a read
            // by another thread from now on needs a barrier after this wait.
            st.writes.insert(st.async.begin(), st.async.end());
            st.async.clear();
        }
        return out;
    }

    Stmt loop_body(const Stmt& body, State& st) {
        State dry = st;
        process(body, dry);  // state at the back edge flows into the next iteration
        State entry = st;
        entry.merge(dry);
        Stmt out = process(body, entry);
        st.merge(entry);
        return out;
    }

    Stmt process(const Stmt& s, State& st) {
        if (!s) return s;
        if (auto* q = s->as<SeqStmtNode>()) {
            std::vector<Stmt> out;
            for (const auto& c : q->seq) out.push_back(process(c, st));
            return make_seq(std::move(out), q->span);
        }
        if (auto* f = s->as<ForNode>()) {
            HasNestedSteps nested;
            nested.visit(f->body);
            bool atomic = f->for_kind == ForKind::Parallel || (f->for_kind == ForKind::Unrolled && !nested.found) || thread_dependent(f->min) ||
                          thread_dependent(f->extent);
            if (atomic) return unit(s, st);
            auto n = std::make_shared<ForNode>(*f);
            n->body = loop_body(f->body, st);
            return n;
        }
        if (auto* w = s->as<WhileNode>()) {
            if (thread_dependent(w->cond)) return unit(s, st);
            return std::make_shared<WhileNode>(w->cond, loop_body(w->body, st), w->span);
        }
        if (auto* i = s->as<IfThenElseNode>()) {
            if (thread_dependent(i->cond)) return unit(s, st);
            Effects ce;
            ce.visit(i->cond);
            State a = st, b = st;
            Stmt t = process(i->then_case, a);
            Stmt e = i->else_case ? process(i->else_case, b) : nullptr;
            st = a;
            st.merge(b);
            return std::make_shared<IfThenElseNode>(i->cond, t, e, i->span);
        }
        if (auto* l = s->as<LetStmtNode>()) {
            if (thread_dependent(l->value)) thread_vars.insert(l->var.get());
            return std::make_shared<LetStmtNode>(l->var, l->value, process(l->body, st), l->span);
        }
        if (auto* a = s->as<AllocateNode>()) return std::make_shared<AllocateNode>(a->buffer, a->init, process(a->body, st), a->span);
        if (auto* w = s->as<WarpRolesNode>()) {
            // The producer only issues TMA loads on mbarriers; the consumers' barriers (emitted
            // as __syncthreads, named barriers over their threads in codegen) start afresh
            // after the block barrier that precedes the split.
            State consumer;
            Stmt c = process(w->consumer, consumer);
            st.merge(consumer);
            return w->with(w->producer, c);
        }
        if (auto* k = s->as<KernelLaunchNode>()) {
            for (const auto& v : k->thread_vars) thread_vars.insert(v.get());
            return std::make_shared<KernelLaunchNode>(k->grid, k->block_vars, k->threads, k->thread_vars, process(k->body, st), k->span);
        }
        return unit(s, st);
    }
};

struct HasShared : IRVisitor {
    bool found = false;
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        found |= n.buffer->scope == Scope::Shared;
        IRVisitor::visit_Allocate(n, s);
    }
};

}  // namespace

PrimFuncPtr insert_syncs(const PrimFuncPtr& func) {
    HasShared h;
    h.visit(func->body);
    if (!h.found) return func;  // registers and global memory only: no barriers
    SyncPlanner p;
    p.divergent = divergent_vars(func->body);
    State st;
    auto f = std::make_shared<PrimFunc>(*func);
    f->body = p.process(func->body, st);
    return f;
}

}  // namespace tp::transform
