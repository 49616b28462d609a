// Default recursion of IRVisitor and IRMutator (see functor.h). The mutator rebuilds a node
// only when one of its children changed, keeping span and dtype, and never folds: folding is
// the simplify pass's job, so a mutator that changes nothing returns the input pointer.
#include "ir/functor.h"

namespace tp::ir {

// ------------------------------------------------------------------------------ visitor
void IRVisitor::visit_buffer(const Buffer& b) {
    if (!b) return;
    for (const auto& d : b->shape) visit(d);
}
void IRVisitor::visit_region(const BufferRegion& r) {
    visit_buffer(r.buffer);
    for (const auto& rg : r.region) {
        visit(rg.min);
        visit(rg.extent);
    }
}

void IRVisitor::visit_IntImm(const IntImmNode&, const Expr&) {}
void IRVisitor::visit_FloatImm(const FloatImmNode&, const Expr&) {}
void IRVisitor::visit_StringImm(const StringImmNode&, const Expr&) {}
void IRVisitor::visit_Var(const VarNode&, const Expr&) {}
void IRVisitor::visit_Binary(const BinaryNode& n, const Expr&) { visit(n.a); visit(n.b); }
void IRVisitor::visit_Unary(const UnaryNode& n, const Expr&) { visit(n.a); }
void IRVisitor::visit_Cast(const CastNode& n, const Expr&) { visit(n.value); }
void IRVisitor::visit_Select(const SelectNode& n, const Expr&) { visit(n.cond); visit(n.true_value); visit(n.false_value); }
void IRVisitor::visit_BufferLoad(const BufferLoadNode& n, const Expr&) {
    visit_buffer(n.buffer);
    for (const auto& i : n.indices) visit(i);
}
void IRVisitor::visit_Call(const CallNode& n, const Expr&) { for (const auto& a : n.args) visit(a); }

void IRVisitor::visit_SeqStmt(const SeqStmtNode& n, const Stmt&) { for (const auto& s : n.seq) visit(s); }
void IRVisitor::visit_For(const ForNode& n, const Stmt&) { visit(Expr(n.loop_var)); visit(n.min); visit(n.extent); visit(n.body); }
void IRVisitor::visit_While(const WhileNode& n, const Stmt&) { visit(n.cond); visit(n.body); }
void IRVisitor::visit_IfThenElse(const IfThenElseNode& n, const Stmt&) { visit(n.cond); visit(n.then_case); visit(n.else_case); }
void IRVisitor::visit_LetStmt(const LetStmtNode& n, const Stmt&) { visit(n.value); visit(n.body); }
void IRVisitor::visit_BufferStore(const BufferStoreNode& n, const Stmt&) {
    visit_buffer(n.buffer);
    for (const auto& i : n.indices) visit(i);
    visit(n.value);
}
void IRVisitor::visit_Evaluate(const EvaluateNode& n, const Stmt&) { visit(n.value); }
void IRVisitor::visit_Break(const BreakNode&, const Stmt&) {}
void IRVisitor::visit_Allocate(const AllocateNode& n, const Stmt&) { visit_buffer(n.buffer); visit(n.init); visit(n.body); }
void IRVisitor::visit_KernelLaunch(const KernelLaunchNode& n, const Stmt&) {
    for (const auto& g : n.grid) visit(g);
    visit(n.body);
}
void IRVisitor::visit_CopyOp(const CopyOpNode& n, const Stmt&) {
    visit_region(n.src);
    visit_region(n.dst);
    if (n.barrier) visit(n.barrier);
}
void IRVisitor::visit_GemmOp(const GemmOpNode& n, const Stmt&) { visit_region(n.A); visit_region(n.B); visit_region(n.C); }
void IRVisitor::visit_FillOp(const FillOpNode& n, const Stmt&) { visit_region(n.dst); visit(n.value); }
void IRVisitor::visit_ReduceOp(const ReduceOpNode& n, const Stmt&) { visit_buffer(n.src); visit_buffer(n.dst); }
void IRVisitor::visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt&) {
    visit_region(n.dst);
    if (auto* r = std::get_if<BufferRegion>(&n.src)) visit_region(*r);
    else visit(std::get<Expr>(n.src));
}
void IRVisitor::visit_PrintOp(const PrintOpNode& n, const Stmt&) {
    if (auto* b = std::get_if<Buffer>(&n.value)) visit_buffer(*b);
    else visit(std::get<Expr>(n.value));
}
void IRVisitor::visit_AssertOp(const AssertOpNode& n, const Stmt&) { visit(n.cond); }
void IRVisitor::visit_SwizzleOp(const SwizzleOpNode&, const Stmt&) {}
void IRVisitor::visit_LayoutAnnotationOp(const LayoutAnnotationOpNode& n, const Stmt&) {
    for (const auto& [b, _] : n.layouts) visit_buffer(b);
}
void IRVisitor::visit_WarpRoles(const WarpRolesNode& n, const Stmt&) {
    visit(n.producer);
    visit(n.consumer);
}
void IRVisitor::visit_RoleBlock(const RoleBlockNode& n, const Stmt&) { visit(n.body); }
void IRVisitor::visit_BarrierOp(const BarrierOpNode& n, const Stmt&) {
    visit_buffer(n.barrier);
    visit(n.index);
    if (n.value) visit(n.value);
}

// ------------------------------------------------------------------------------ mutator
bool IRMutator::mutate_exprs(const std::vector<Expr>& in, std::vector<Expr>& out) {
    bool changed = false;
    out.clear();
    out.reserve(in.size());
    for (const auto& e : in) {
        out.push_back(mutate(e));
        changed |= out.back() != e;
    }
    return changed;
}

bool IRMutator::mutate_region(const BufferRegion& in, BufferRegion& out) {
    out.buffer = mutate_buffer(in.buffer);
    bool changed = out.buffer != in.buffer;
    out.region.clear();
    for (const auto& r : in.region) {
        Range nr{mutate(r.min), mutate(r.extent)};
        changed |= nr.min != r.min || nr.extent != r.extent;
        out.region.push_back(std::move(nr));
    }
    return changed;
}

Expr IRMutator::visit_IntImm(const IntImmNode&, const Expr& e) { return e; }
Expr IRMutator::visit_FloatImm(const FloatImmNode&, const Expr& e) { return e; }
Expr IRMutator::visit_StringImm(const StringImmNode&, const Expr& e) { return e; }
Expr IRMutator::visit_Var(const VarNode&, const Expr& e) { return e; }
Expr IRMutator::visit_Binary(const BinaryNode& n, const Expr& e) {
    Expr a = mutate(n.a), b = mutate(n.b);
    if (a == n.a && b == n.b) return e;
    return std::make_shared<BinaryNode>(n.op, a, b, n.dtype, n.span);
}
Expr IRMutator::visit_Unary(const UnaryNode& n, const Expr& e) {
    Expr a = mutate(n.a);
    if (a == n.a) return e;
    return std::make_shared<UnaryNode>(n.op, a, n.dtype, n.span);
}
Expr IRMutator::visit_Cast(const CastNode& n, const Expr& e) {
    Expr v = mutate(n.value);
    if (v == n.value) return e;
    return std::make_shared<CastNode>(n.dtype, v, n.span);
}
Expr IRMutator::visit_Select(const SelectNode& n, const Expr& e) {
    Expr c = mutate(n.cond), t = mutate(n.true_value), f = mutate(n.false_value);
    if (c == n.cond && t == n.true_value && f == n.false_value) return e;
    return std::make_shared<SelectNode>(c, t, f, n.dtype, n.span);
}
Expr IRMutator::visit_BufferLoad(const BufferLoadNode& n, const Expr& e) {
    Buffer b = mutate_buffer(n.buffer);
    std::vector<Expr> idx;
    bool changed = mutate_exprs(n.indices, idx);
    if (!changed && b == n.buffer) return e;
    return std::make_shared<BufferLoadNode>(b, std::move(idx), n.span);
}
Expr IRMutator::visit_Call(const CallNode& n, const Expr& e) {
    std::vector<Expr> args;
    if (!mutate_exprs(n.args, args)) return e;
    return std::make_shared<CallNode>(n.op, std::move(args), n.dtype, n.span);
}

Stmt IRMutator::visit_SeqStmt(const SeqStmtNode& n, const Stmt& s) {
    std::vector<Stmt> out;
    bool changed = false;
    for (const auto& c : n.seq) {
        out.push_back(mutate(c));
        changed |= out.back() != c;
    }
    if (!changed) return s;
    return make_seq(std::move(out), n.span);
}
Stmt IRMutator::visit_For(const ForNode& n, const Stmt& s) {
    Expr mn = mutate(n.min), ext = mutate(n.extent);
    Stmt body = mutate(n.body);
    if (mn == n.min && ext == n.extent && body == n.body) return s;
    auto f = std::make_shared<ForNode>(n);
    f->min = mn;
    f->extent = ext;
    f->body = body;
    return f;
}
Stmt IRMutator::visit_While(const WhileNode& n, const Stmt& s) {
    Expr c = mutate(n.cond);
    Stmt b = mutate(n.body);
    if (c == n.cond && b == n.body) return s;
    return std::make_shared<WhileNode>(c, b, n.span);
}
Stmt IRMutator::visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) {
    Expr c = mutate(n.cond);
    Stmt t = mutate(n.then_case), e = mutate(n.else_case);
    if (c == n.cond && t == n.then_case && e == n.else_case) return s;
    return std::make_shared<IfThenElseNode>(c, t, e, n.span);
}
Stmt IRMutator::visit_LetStmt(const LetStmtNode& n, const Stmt& s) {
    Expr v = mutate(n.value);
    Stmt b = mutate(n.body);
    if (v == n.value && b == n.body) return s;
    return std::make_shared<LetStmtNode>(n.var, v, b, n.span);
}
Stmt IRMutator::visit_BufferStore(const BufferStoreNode& n, const Stmt& s) {
    Buffer b = mutate_buffer(n.buffer);
    std::vector<Expr> idx;
    bool changed = mutate_exprs(n.indices, idx);
    Expr v = mutate(n.value);
    if (!changed && b == n.buffer && v == n.value) return s;
    return std::make_shared<BufferStoreNode>(b, std::move(idx), v, n.span);
}
Stmt IRMutator::visit_Evaluate(const EvaluateNode& n, const Stmt& s) {
    Expr v = mutate(n.value);
    if (v == n.value) return s;
    return std::make_shared<EvaluateNode>(v, n.span);
}
Stmt IRMutator::visit_Break(const BreakNode&, const Stmt& s) { return s; }
Stmt IRMutator::visit_Allocate(const AllocateNode& n, const Stmt& s) {
    Buffer b = mutate_buffer(n.buffer);
    Expr init = mutate(n.init);
    Stmt body = mutate(n.body);
    if (b == n.buffer && init == n.init && body == n.body) return s;
    return std::make_shared<AllocateNode>(b, init, body, n.span);
}
Stmt IRMutator::visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) {
    std::vector<Expr> grid;
    bool changed = mutate_exprs(n.grid, grid);
    Stmt body = mutate(n.body);
    if (!changed && body == n.body) return s;
    return std::make_shared<KernelLaunchNode>(std::move(grid), n.block_vars, n.threads, n.thread_vars, body, n.span);
}
Stmt IRMutator::visit_CopyOp(const CopyOpNode& n, const Stmt& s) {
    BufferRegion src, dst;
    bool c1 = mutate_region(n.src, src), c2 = mutate_region(n.dst, dst);
    Expr bar = mutate(n.barrier);
    if (!c1 && !c2 && bar == n.barrier) return s;
    auto out = std::make_shared<CopyOpNode>(n);
    out->src = std::move(src);
    out->dst = std::move(dst);
    out->barrier = std::move(bar);
    return out;
}
Stmt IRMutator::visit_GemmOp(const GemmOpNode& n, const Stmt& s) {
    BufferRegion a, b, c;
    bool ca = mutate_region(n.A, a), cb = mutate_region(n.B, b), cc = mutate_region(n.C, c);
    if (!ca && !cb && !cc) return s;
    auto out = std::make_shared<GemmOpNode>(n);
    out->A = std::move(a);
    out->B = std::move(b);
    out->C = std::move(c);
    return out;
}
Stmt IRMutator::visit_FillOp(const FillOpNode& n, const Stmt& s) {
    BufferRegion dst;
    bool c = mutate_region(n.dst, dst);
    Expr v = mutate(n.value);
    if (!c && v == n.value) return s;
    return std::make_shared<FillOpNode>(std::move(dst), v, n.span);
}
Stmt IRMutator::visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) {
    Buffer src = mutate_buffer(n.src), dst = mutate_buffer(n.dst);
    if (src == n.src && dst == n.dst) return s;
    return std::make_shared<ReduceOpNode>(n.reduce_kind, src, dst, n.dim, n.clear, n.span);
}
Stmt IRMutator::visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) {
    BufferRegion dst;
    bool changed = mutate_region(n.dst, dst);
    std::variant<BufferRegion, Expr> src = n.src;
    if (auto* r = std::get_if<BufferRegion>(&n.src)) {
        BufferRegion nr;
        changed |= mutate_region(*r, nr);
        src = std::move(nr);
    } else {
        Expr v = mutate(std::get<Expr>(n.src));
        changed |= v != std::get<Expr>(n.src);
        src = v;
    }
    if (!changed) return s;
    return std::make_shared<AtomicAddOpNode>(std::move(dst), std::move(src), n.span);
}
Stmt IRMutator::visit_PrintOp(const PrintOpNode& n, const Stmt& s) {
    if (auto* b = std::get_if<Buffer>(&n.value)) {
        Buffer nb = mutate_buffer(*b);
        if (nb == *b) return s;
        return std::make_shared<PrintOpNode>(nb, n.msg, n.span);
    }
    Expr v = mutate(std::get<Expr>(n.value));
    if (v == std::get<Expr>(n.value)) return s;
    return std::make_shared<PrintOpNode>(v, n.msg, n.span);
}
Stmt IRMutator::visit_AssertOp(const AssertOpNode& n, const Stmt& s) {
    Expr c = mutate(n.cond);
    if (c == n.cond) return s;
    return std::make_shared<AssertOpNode>(c, n.msg, n.span);
}
Stmt IRMutator::visit_SwizzleOp(const SwizzleOpNode&, const Stmt& s) { return s; }
Stmt IRMutator::visit_LayoutAnnotationOp(const LayoutAnnotationOpNode& n, const Stmt& s) {
    bool changed = false;
    std::vector<std::pair<Buffer, std::string>> l;
    for (const auto& [b, name] : n.layouts) {
        l.emplace_back(mutate_buffer(b), name);
        changed |= l.back().first != b;
    }
    if (!changed) return s;
    return std::make_shared<LayoutAnnotationOpNode>(std::move(l), n.span);
}
Stmt IRMutator::visit_WarpRoles(const WarpRolesNode& n, const Stmt& s) {
    Stmt p = mutate(n.producer), c = mutate(n.consumer);
    if (p == n.producer && c == n.consumer) return s;
    return n.with(p, c);
}
Stmt IRMutator::visit_RoleBlock(const RoleBlockNode& n, const Stmt& s) {
    Stmt b = mutate(n.body);
    if (b == n.body) return s;
    return std::make_shared<RoleBlockNode>(n.groups, b, n.span);
}
Stmt IRMutator::visit_BarrierOp(const BarrierOpNode& n, const Stmt& s) {
    Buffer b = mutate_buffer(n.barrier);
    Expr i = mutate(n.index), v = mutate(n.value);
    if (b == n.barrier && i == n.index && v == n.value) return s;
    return std::make_shared<BarrierOpNode>(n.barrier_kind, b, i, v, n.span);
}

PrimFuncPtr mutate_func(const PrimFuncPtr& f, IRMutator& m) {
    Stmt body = m.mutate(f->body);
    bool changed = body != f->body;
    std::vector<Param> params = f->params;
    for (auto& p : params) {
        if (!p.buffer) continue;
        Buffer nb = m.mutate_buffer(p.buffer);
        changed |= nb != p.buffer;
        p.buffer = nb;
    }
    if (!changed) return f;
    auto out = std::make_shared<PrimFunc>(*f);
    out->body = body;
    out->params = std::move(params);
    return out;
}

}  // namespace tp::ir
