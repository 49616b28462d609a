// Which kernels the interpreter runs as their threads (threads.cpp), read off the IR before a
// run: the statements that are block-wide (a tile op, a T.Parallel loop), a kernel written at
// thread level (thread_level), one whose roles the user split by hand on the thread index
// (hand_split_roles), and the interval of the thread index each branch of such a role test
// runs on (thread_interval, also used while compiling the roles' statements).
#include <algorithm>
#include <optional>
#include <set>
#include <variant>

#include "interp/program.h"
#include "ir/functor.h"

namespace tp::interp {

bool block_wide(const ir::Stmt& s) {
    std::vector<const ir::BufferNode*> bufs;
    if (auto* c = s->as<ir::CopyOpNode>())
        bufs = {c->src.buffer.get(), c->dst.buffer.get()};
    else if (auto* g = s->as<ir::GemmOpNode>())
        bufs = {g->A.buffer.get(), g->B.buffer.get(), g->C.buffer.get()};
    else if (auto* f = s->as<ir::FillOpNode>())
        bufs = {f->dst.buffer.get()};
    else if (auto* r = s->as<ir::ReduceOpNode>())
        bufs = {r->src.get(), r->dst.get()};
    else if (auto* a = s->as<ir::AtomicAddOpNode>()) {
        auto* src = std::get_if<ir::BufferRegion>(&a->src);
        if (!src) return false;  // one element added by each thread that runs it
        bufs = {a->dst.buffer.get(), src->buffer.get()};
    } else if (auto* p = s->as<ir::PrintOpNode>()) {
        auto* b = std::get_if<ir::Buffer>(&p->value);
        if (!b) return false;  // a scalar: each thread that runs it prints its own value
        bufs = {b->get()};
    } else if (auto* f = s->as<ir::ForNode>()) {
        return f->for_kind == ir::ForKind::Parallel;
    } else {
        return false;
    }
    // A tile op on a thread's own local buffers is that thread's.
    for (const auto* b : bufs)
        if (b->scope == ir::Scope::Local || b->scope == ir::Scope::Var) return false;
    return true;
}

namespace {

// Narrows [lo, hi) to the thread indices `cond` admits when it compares `tid` with constants
// (`tx < c`, `c <= tx`, `tx == c`) or conjoins such tests; false for any other condition.
bool bound_of(const ir::Expr& cond, const ir::VarNode* tid, int64_t& lo, int64_t& hi) {
    auto* b = cond ? cond->as<ir::BinaryNode>() : nullptr;
    if (!b) return false;
    if (b->op == ir::BinaryOp::And) return bound_of(b->a, tid, lo, hi) && bound_of(b->b, tid, lo, hi);
    ir::BinaryOp op = b->op;
    std::optional<int64_t> c;
    if (b->a.get() == tid) {
        c = ir::as_const_int(b->b);
    } else if (b->b.get() == tid) {
        c = ir::as_const_int(b->a);
        // `c < tx` is `tx > c`
        static const std::pair<ir::BinaryOp, ir::BinaryOp> flip[] = {{ir::BinaryOp::LT, ir::BinaryOp::GT},
                                                                     {ir::BinaryOp::LE, ir::BinaryOp::GE},
                                                                     {ir::BinaryOp::GT, ir::BinaryOp::LT},
                                                                     {ir::BinaryOp::GE, ir::BinaryOp::LE}};
        for (auto [from, to] : flip)
            if (op == from) {
                op = to;
                break;
            }
    }
    if (!c) return false;
    switch (op) {
        case ir::BinaryOp::LT:
            hi = std::min(hi, *c);
            return true;
        case ir::BinaryOp::LE:
            hi = std::min(hi, *c + 1);
            return true;
        case ir::BinaryOp::GT:
            lo = std::max(lo, *c + 1);
            return true;
        case ir::BinaryOp::GE:
            lo = std::max(lo, *c);
            return true;
        case ir::BinaryOp::EQ:
            lo = std::max(lo, *c);
            hi = std::min(hi, *c + 1);
            return true;
        default:
            return false;
    }
}

}  // namespace

bool thread_interval(const ir::Expr& cond, const ir::VarNode* tid, ThreadRange cur, ThreadRange& then_r, ThreadRange& else_r) {
    int64_t lo = cur.lo, hi = cur.hi;
    if (!tid || !bound_of(cond, tid, lo, hi)) return false;
    then_r = {lo, std::max(lo, hi)};
    // The else branch is an interval when the then branch takes one end of the current one.
    else_r = {-1, -1};
    if (then_r.lo <= cur.lo)
        else_r = {std::max(cur.lo, then_r.hi), cur.hi};
    else if (then_r.hi >= cur.hi)
        else_r = {cur.lo, std::min(cur.hi, then_r.lo)};
    return true;
}

namespace {

// What thread_level and hand_split_roles read off a kernel.
struct Scan : ir::IRVisitor {
    std::set<const ir::VarNode*> tainted;  // thread indices and lets computed from them
    bool reads = false, blocked = false;
    int divergent = 0;  // depth of control flow that depends on the thread index
    // A one-dimensional block's thread index, and the interval of it the code at hand runs
    // on (a role the user split by hand); whether a role holds a tile op or an mbarrier wait.
    const ir::VarNode* tid = nullptr;
    ThreadRange range;
    bool roles = false, barriers = false;
    bool reads_thread(const ir::Expr& e) {
        struct R : ir::IRVisitor {
            const std::set<const ir::VarNode*>* t;
            bool hit = false;
            void visit_Var(const ir::VarNode& n, const ir::Expr&) override { hit |= t->count(&n) > 0; }
        } r;
        r.t = &tainted;
        if (e) r.visit(e);
        return r.hit;
    }
    int64_t block = 0;
    bool in_role() const { return tid && (range.lo > 0 || range.hi < block); }
    void visit_KernelLaunch(const ir::KernelLaunchNode& n, const ir::Stmt& s) override {
        for (const auto& v : n.thread_vars) tainted.insert(v.get());
        block = n.num_threads();
        if (!n.thread_vars.empty() && !n.threads.empty() && n.threads[0] == block) tid = n.thread_vars[0].get();
        range = {0, block};
        ir::IRVisitor::visit_KernelLaunch(n, s);
    }
    void visit_Var(const ir::VarNode& n, const ir::Expr&) override { reads |= tainted.count(&n) > 0; }
    void visit_LetStmt(const ir::LetStmtNode& n, const ir::Stmt& s) override {
        if (reads_thread(n.value)) tainted.insert(n.var.get());
        ir::IRVisitor::visit_LetStmt(n, s);
    }
    void collective() {
        blocked |= divergent > 0;
        roles |= in_role();
    }
    void visit_IfThenElse(const ir::IfThenElseNode& n, const ir::Stmt& s) override {
        ThreadRange then_r, else_r;
        if (divergent == 0 && reads_thread(n.cond) && thread_interval(n.cond, tid, range, then_r, else_r)) {
            reads = true;
            const ThreadRange saved = range;
            range = then_r;
            visit_stmt(n.then_case);
            range = else_r;
            const bool whole = else_r.lo >= 0;
            divergent += !whole;
            if (n.else_case) visit_stmt(n.else_case);
            divergent -= !whole;
            range = saved;
            return;
        }
        const bool d = reads_thread(n.cond);
        divergent += d;
        ir::IRVisitor::visit_IfThenElse(n, s);
        divergent -= d;
    }
    void visit_While(const ir::WhileNode& n, const ir::Stmt& s) override {
        const bool d = reads_thread(n.cond);
        divergent += d;
        ir::IRVisitor::visit_While(n, s);
        divergent -= d;
    }
    void visit_For(const ir::ForNode& n, const ir::Stmt& s) override {
        if (n.for_kind == ir::ForKind::Parallel) return ir::IRVisitor::visit_For(n, s);  // block-wide (visit_stmt)
        const bool d = reads_thread(n.min) || reads_thread(n.extent);
        divergent += d;
        ir::IRVisitor::visit_For(n, s);
        divergent -= d;
    }
    void visit_RoleBlock(const ir::RoleBlockNode& n, const ir::Stmt& s) override {
        blocked = true;  // warp-group roles keep their own program-order model
        ir::IRVisitor::visit_RoleBlock(n, s);
    }
    void visit_BarrierOp(const ir::BarrierOpNode& n, const ir::Stmt& s) override {
        // mbarriers keep the program-order model unless roles split by hand use them.
        barriers = true;
        roles |= in_role();
        ir::IRVisitor::visit_BarrierOp(n, s);
    }
    void visit_Call(const ir::CallNode& n, const ir::Expr& e) override {
        blocked |= n.op == "named_barrier";  // a barrier of some threads: no fiber model of it
        if (n.op == "__syncthreads") collective();
        if (n.op == "warp_shuffle") {  // an exchange between threads: only threads can run it
            reads = true;
            collective();
        }
        ir::IRVisitor::visit_Call(n, e);
    }
    void visit_stmt(const ir::Stmt& s) override {
        if (block_wide(s)) collective();
        ir::IRVisitor::visit_stmt(s);
    }
};

}  // namespace

bool thread_level(const ir::PrimFunc& f) {
    Scan scan;
    scan.visit(f.body);
    return scan.reads && !scan.blocked && (!scan.barriers || scan.roles);
}

bool hand_split_roles(const ir::PrimFunc& f) {
    Scan scan;
    scan.visit(f.body);
    return scan.reads && !scan.blocked && scan.roles;
}

}  // namespace tp::interp
