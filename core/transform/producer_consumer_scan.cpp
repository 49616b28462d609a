// The scan of producer_consumer (see producer_consumer.h): every global -> shared copy with the
// TMA plan it would take and why the producer could not issue it, the references and writes
// that decide a channel's window, and the wait a loop's last wgmma group may defer.
#include <algorithm>

#include "ops/access.h"
#include "transform/producer_consumer_internal.h"
#include "transform/tile_lowering.h"

namespace tp::transform::pc {

namespace {

struct RefCounter : IRVisitor {
    const BufferNode* b = nullptr;
    int64_t n = 0;
    void visit_buffer(const Buffer& buf) override {
        if (buf.get() == b) ++n;
        IRVisitor::visit_buffer(buf);
    }
    void visit_Allocate(const AllocateNode& a, const Stmt&) override {
        visit(a.init);
        visit(a.body);
    }
    void visit_LayoutAnnotationOp(const LayoutAnnotationOpNode&, const Stmt&) override {}
};

struct WriteFinder : ops::OpAccessVisitor {
    const BufferNode* b = nullptr;
    bool found = false;
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        found |= n.buffer.get() == b;
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        if ((n.op == "tp.addr_w" || n.op == "atomic_add") && !n.args.empty())
            if (auto* l = n.args[0]->as<BufferLoadNode>()) found |= l->buffer.get() == b;
        IRVisitor::visit_Call(n, e);
    }
    void on_op(const StmtNode&, const ops::OpAccess& a) override {
        for (const auto& w : a.writes) found |= w.buffer.get() == b;
    }
};

// Global tensors the kernel stores to: a read of any other one may steer the producer.
struct GlobalWrites : ops::OpAccessVisitor {
    std::set<const BufferNode*> out;
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        if (n.buffer->scope == Scope::Global) out.insert(n.buffer.get());
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        if ((n.op == "tp.addr_w" || n.op == "atomic_add") && !n.args.empty())
            if (auto* l = n.args[0]->as<BufferLoadNode>(); l && l->buffer->scope == Scope::Global) out.insert(l->buffer.get());
        IRVisitor::visit_Call(n, e);
    }
    void on_op(const StmtNode&, const ops::OpAccess& a) override {
        for (const auto& w : a.writes)
            if (w.buffer->scope == Scope::Global) out.insert(w.buffer.get());
    }
};

}  // namespace

namespace {

// Whether the producer can compute an expression alone: no thread index, no per-thread or
// shared storage, only variables it binds too.
struct Purity : IRVisitor {
    const std::set<const VarNode*>* vars = nullptr;
    const std::set<const BufferNode*>* written = nullptr;
    bool ok = true;
    void visit_Var(const VarNode& n, const Expr&) override {
        if (n.var_kind == VarKind::BlockIdx || n.var_kind == VarKind::Param || n.var_kind == VarKind::Symbolic) return;
        ok &= vars->count(&n) > 0;
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        ok &= n.buffer->scope == Scope::Global && !written->count(n.buffer.get());
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        ok &= n.op.rfind("tp.", 0) != 0 && n.op != "atomic_add" && n.op != "__syncthreads";
        IRVisitor::visit_Call(n, e);
    }
};

}  // namespace

// Walks the kernel with the set of variables the producer can bind, and collects every
// global -> shared copy with why it can or cannot be a channel.
struct Finder : IRVisitor {
    const Target* target = nullptr;
    std::set<const BufferNode*> written_globals;
    std::set<const VarNode*> pure;
    std::vector<const ForNode*> loops;  // enclosing loops, innermost last
    int impure_depth = 0;               // > 0 inside control flow the producer cannot follow
    std::vector<Candidate> found;
    std::vector<const ForNode*> pipelines;

    bool is_pure(const Expr& e) {
        Purity p;
        p.vars = &pure;
        p.written = &written_globals;
        p.visit(e);
        return p.ok;
    }
    void visit_For(const ForNode& n, const Stmt&) override {
        if (n.for_kind == ForKind::Pipelined) pipelines.push_back(&n);
        bool ok = n.for_kind != ForKind::Parallel && is_pure(n.min) && is_pure(n.extent);
        if (!ok) ++impure_depth;
        pure.insert(n.loop_var.get());
        loops.push_back(&n);
        visit(n.body);
        loops.pop_back();
        if (!ok) --impure_depth;
    }
    void visit_While(const WhileNode& n, const Stmt&) override {
        ++impure_depth;
        visit(n.body);
        --impure_depth;
    }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt&) override {
        bool ok = is_pure(n.cond);
        if (!ok) ++impure_depth;
        visit(n.then_case);
        visit(n.else_case);
        if (!ok) --impure_depth;
    }
    void visit_LetStmt(const LetStmtNode& n, const Stmt&) override {
        if (is_pure(n.value)) pure.insert(n.var.get());
        visit(n.body);
    }
    void visit_WarpRoles(const WarpRolesNode&, const Stmt&) override { ++impure_depth; }
    void visit_CopyOp(const CopyOpNode& n, const Stmt&) override {
        if (n.src.buffer->scope != Scope::Global || n.dst.buffer->scope != Scope::Shared) return;
        Candidate c{&n, nullptr, ops::plan_tma_load(n, *target), ""};
        if (!loops.empty() && loops.back()->for_kind == ForKind::Pipelined) c.pipeline = loops.back();
        if (!c.tma.ok) c.why = c.tma.why;
        else if (impure_depth > 0) c.why = "it sits in a loop or branch that depends on values only the tile code computes";
        else {
            for (const auto& r : n.src.region)
                if (!is_pure(r.min)) {
                    c.why = "its position depends on values only the tile code computes";
                    break;
                }
        }
        found.push_back(std::move(c));
    }
};

Launch find_launch(const Stmt& body) {
    struct F : IRVisitor {
        const KernelLaunchNode* k = nullptr;
        void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt&) override {
            if (!k) k = &n;
        }
    } f;
    f.visit(body);
    Launch l;
    l.node = f.k;
    if (!f.k) return l;
    Stmt s = f.k->body;
    while (true) {
        if (auto* a = s->as<AllocateNode>()) s = a->body;
        else if (auto* t = s->as<LetStmtNode>()) s = t->body;
        else break;
    }
    l.top = s;
    return l;
}

bool has_tile_print(const Stmt& s) {
    struct P : IRVisitor {
        bool found = false;
        void visit_PrintOp(const PrintOpNode& n, const Stmt&) override { found |= std::holds_alternative<Buffer>(n.value); }
    } p;
    p.visit(s);
    return p.found;
}

// The statement list a statement belongs to and its position there, for every list of the
// program (a loop body that is one statement is a list of one).
struct ListIndex : IRVisitor {
    std::map<const StmtNode*, std::pair<std::vector<Stmt>, size_t>> where;
    void index(const Stmt& s) {
        if (!s) return;
        std::vector<Stmt> list;
        flatten_seq(s, list);
        for (size_t i = 0; i < list.size(); ++i) where[list[i].get()] = {list, i};
        for (const auto& x : list) visit(x);
    }
    void visit_SeqStmt(const SeqStmtNode& n, const Stmt& s) override { index(s); }
    void visit_For(const ForNode& n, const Stmt&) override { index(n.body); }
    void visit_While(const WhileNode& n, const Stmt&) override { index(n.body); }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt&) override {
        index(n.then_case);
        index(n.else_case);
    }
    void visit_LetStmt(const LetStmtNode& n, const Stmt&) override { index(n.body); }
    void visit_Allocate(const AllocateNode& n, const Stmt&) override { index(n.body); }
};

// The consumers must see the tile only between the copy and its last reader in the same list.
std::string check_uses(const Candidate& c, const Stmt& top) {
    ListIndex lists;
    lists.index(top);
    const BufferNode* tile = c.copy->dst.buffer.get();
    auto it = lists.where.find(c.copy);
    if (it == lists.where.end()) return "its statement list was not found";
    const auto& [list, i] = it->second;
    int64_t window = 0;
    for (size_t j = i + 1; j < list.size(); ++j) {
        if (writes(list[j], tile)) return "`" + c.copy->dst.buffer->name + "` is also written by the tile code";
        window += references(list[j], tile);
    }
    if (references(top, tile) != window + 1)
        return "`" + c.copy->dst.buffer->name + "` is read before its copy or outside the statements that follow it";
    return "";
}

Scan scan_copies(const PrimFunc& func, const Stmt& top, const Target& target) {
    Finder f;
    f.target = &target;
    GlobalWrites gw;
    gw.visit(func.body);
    f.written_globals = gw.out;
    f.visit(top);
    return Scan{std::move(f.found), std::move(f.pipelines)};
}

const CallNode* deferrable_tail(const std::vector<Stmt>& body, const std::set<const BufferNode*>& ring_tiles) {
    const CallNode* wait = body.empty() ? nullptr : evaluated_call(body.back(), "tp.async_wait");
    if (!wait) return nullptr;
    for (size_t a = 1; a < wait->args.size(); ++a) {
        auto* l = addressed(wait->args[a]);
        if (!l) return nullptr;
        const BufferNode* b = l->buffer.get();
        if (b->scope == Scope::Shared) {
            if (!ring_tiles.count(b)) return nullptr;  // only ring slots keep a tile safe while it runs
            continue;
        }
        for (size_t j = 0; j + 1 < body.size(); ++j)
            if (!evaluated_call(body[j], "tp.async_call") && references(body[j], b) > 0) return nullptr;
    }
    return wait;
}

int64_t references(const Stmt& s, const BufferNode* b) {
    RefCounter r;
    r.b = b;
    r.visit(s);
    return r.n;
}

bool writes(const Stmt& s, const BufferNode* b) {
    WriteFinder w;
    w.b = b;
    w.visit(s);
    return w.found;
}

}  // namespace tp::transform::pc
