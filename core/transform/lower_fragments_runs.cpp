// layout_inference's rewrite, runs of a striped T.Parallel loop (see lower_fragments_internal.h):
// when the driving fragment holds runs of V contiguous elements, a shared or global buffer the
// loop reads or writes along its innermost variable is moved a run at a time, one 4, 8 or
// 16-byte access (tp::striped_run_load / striped_run_store) instead of V scalar ones. Without it
// a 16-bit row staged in shared memory (`X_local[i, j] = X_smem[i, j]`) takes V two-byte loads a
// run, and runs of 16 bytes per thread make them 4-way bank conflicts.
#include <map>
#include <set>

#include "transform/lower_fragments_internal.h"
#include "transform/tile_lowering.h"

namespace tp::transform::frag_lowering {

namespace {

bool run_type(DataType t) {  // what tp::striped_get / striped_set convert: floats and fp8
    return t == DataType::float32() || t == DataType::float16() || t == DataType::bfloat16() ||
           t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2;
}

struct UsesVar : IRVisitor {
    const VarNode* v;
    bool found = false;
    void visit_Var(const VarNode& n, const Expr& e) override {
        found |= &n == v;
        IRVisitor::visit_Var(n, e);
    }
};

bool uses(const Expr& e, const VarNode* v) {
    UsesVar u;
    u.v = v;
    u.visit(e);
    return u.found;
}

std::string key_of(const std::vector<Expr>& idx) {
    std::string k;
    for (const auto& i : idx) k += ir::print(i) + ";";
    return k;
}

// Every shared or global access of the body, with whether it sits under a condition (an if, a
// loop, a select or a short-circuit operand): such an access may not happen, so it may not be
// widened into an unconditional one.
struct MemScan : IRVisitor {
    struct Use {
        std::string key;
        std::vector<Expr> idx;
        bool load = false, store = false, conditional = false, mixed_index = false;
    };
    std::map<const BufferNode*, Use> uses;
    std::map<const BufferNode*, Buffer> buffers;
    int cond = 0;
    void note(const Buffer& b, const std::vector<Expr>& idx, bool store) {
        if (b->scope != Scope::Shared && b->scope != Scope::Global) return;
        auto [it, fresh] = uses.try_emplace(b.get());
        Use& u = it->second;
        std::string k = key_of(idx);
        if (fresh) u.key = k, u.idx = idx;
        u.mixed_index |= u.key != k;
        (store ? u.store : u.load) = true;
        u.conditional |= cond > 0;
        buffers[b.get()] = b;
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        note(n.buffer, n.indices, false);
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        note(n.buffer, n.indices, true);
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override {
        ++cond;
        IRVisitor::visit_IfThenElse(n, s);
        --cond;
    }
    void visit_For(const ForNode& n, const Stmt& s) override {
        ++cond;
        IRVisitor::visit_For(n, s);
        --cond;
    }
    void visit_While(const WhileNode& n, const Stmt& s) override {
        ++cond;
        IRVisitor::visit_While(n, s);
        --cond;
    }
    void visit_Select(const SelectNode& n, const Expr& e) override {
        ++cond;
        IRVisitor::visit_Select(n, e);
        --cond;
    }
    void visit_Binary(const BinaryNode& n, const Expr& e) override {
        bool sc = n.op == BinaryOp::And || n.op == BinaryOp::Or;
        cond += sc;
        IRVisitor::visit_Binary(n, e);
        cond -= sc;
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        // An element whose address a call takes (T.atomic_add's target, a device call's
        // operand) is memory the call reads or writes itself: never a run register.
        if (n.op.rfind("atomic", 0) == 0 || n.op.rfind("tp.", 0) == 0)
            for (const auto& a : n.args)
                if (auto* l = a->as<BufferLoadNode>()) addressed.insert(l->buffer.get());
        bool sc = n.op == "if_then_else";
        cond += sc;
        IRVisitor::visit_Call(n, e);
        cond -= sc;
    }
    std::set<const BufferNode*> addressed;
};

// Accesses of the run's buffers become reads and writes of their run registers at slot q.
struct ToRun : IRMutator {
    const std::map<const BufferNode*, Buffer>* regs;
    Expr q;
    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        auto it = regs->find(n.buffer.get());
        if (it == regs->end()) return IRMutator::visit_BufferLoad(n, e);
        return std::make_shared<BufferLoadNode>(it->second, std::vector<Expr>{q}, n.span);
    }
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        auto it = regs->find(n.buffer.get());
        if (it == regs->end()) return IRMutator::visit_BufferStore(n, s);
        return std::make_shared<BufferStoreNode>(it->second, std::vector<Expr>{q}, mutate(n.value), n.span);
    }
};

Stmt seq(std::vector<Stmt> v, Span span) {
    if (v.size() == 1) return v[0];
    return std::make_shared<SeqStmtNode>(std::move(v), span);
}

}  // namespace

Stmt FragLowerer::lower_striped_runs(const Ctx& c, const std::vector<const ForNode*>& nest, Span span) {
    const FragLayout& d = c.drv;
    const int64_t V = d.vec;
    if (d.kind != FragLayout::Striped || V <= 1 || d.elems % (d.threads * V) != 0) return nullptr;
    const VarNode* inner = nest.back()->loop_var.get();
    MemScan scan;
    scan.visit(nest.back()->body);
    // A buffer moves by runs when every access of it in the body is the same unconditional
    // element, indexed along the innermost variable only in its last dimension, of a row that
    // is a whole number of aligned runs (the run's first element is then 16-byte aligned, as
    // tp::striped_load_global assumes of tensor bases), and it is only read or only written.
    std::map<const BufferNode*, Buffer> regs;
    std::vector<std::pair<Buffer, std::vector<Expr>>> loads, stores;
    for (const auto& [bn, u] : scan.uses) {
        const Buffer& b = scan.buffers[bn];
        int64_t bytes = V * b->dtype.bytes();
        if (u.conditional || u.mixed_index || (u.load && u.store) || scan.addressed.count(bn) || !b->layout.empty() || !run_type(b->dtype))
            continue;
        if (bytes != 4 && bytes != 8 && (bytes % 16 != 0 || bytes > 64)) continue;
        if (u.idx.empty() || u.idx.back().get() != inner) continue;
        bool outer_free = true;
        for (size_t k = 0; k + 1 < u.idx.size(); ++k) outer_free &= !uses(u.idx[k], inner);
        auto row = as_const_int(b->shape.back());
        if (!outer_free || !row || *row % V != 0) continue;
        Buffer r = std::make_shared<BufferNode>("tp_run_" + b->name, b->dtype, std::vector<Expr>{int_imm(V)}, Scope::Local, span);
        regs[bn] = r;
        (u.load ? loads : stores).push_back({b, u.idx});
    }
    if (regs.empty()) return nullptr;
    auto run_fn = [&](const char* fn, const Buffer& b) {
        return std::string(fn) + "<" + std::to_string(V) + ", " + b->dtype.cuda_name() + ">";
    };
    return local_loop(d.local_size() / V, "tp_run", [&](const Expr& run) -> Stmt {
        Expr first = make_binary(BinaryOp::Mul, run, int_imm(V));
        std::vector<Stmt> pre, post;
        for (const auto& [b, idx] : loads)
            pre.push_back(device_call(run_fn("tp::striped_run_load", b),
                                      {buffer_addr(regs[b.get()], {int_imm(0)}, true, span), buffer_addr(b, idx, false, span)}, span));
        for (const auto& [b, idx] : stores)
            post.push_back(device_call(run_fn("tp::striped_run_store", b),
                                       {buffer_addr(b, idx, true, span), buffer_addr(regs[b.get()], {int_imm(0)}, false, span)}, span));
        std::vector<Stmt> parts;
        if (!pre.empty()) parts.push_back(bind_striped(c, nest, d.striped_elem(tid, first), seq(std::move(pre), span), span));
        parts.push_back(local_loop(V, "tp_q", [&](const Expr& q) -> Stmt {
            ToRun to;
            to.regs = &regs;
            to.q = q;
            Stmt body = to.mutate(nest.back()->body);
            ctx = c;
            ctx->local = make_binary(BinaryOp::Add, first, q);
            body = mutate(body);
            ctx.reset();
            return bind_striped(c, nest, d.striped_elem(tid, make_binary(BinaryOp::Add, first, q)), body, span);
        }, span));
        if (!post.empty()) parts.push_back(bind_striped(c, nest, d.striped_elem(tid, first), seq(std::move(post), span), span));
        Stmt s = seq(std::move(parts), span);
        for (const auto& [bn, r] : regs) s = std::make_shared<AllocateNode>(r, nullptr, s, span);
        return s;
    }, span);
}

}  // namespace tp::transform::frag_lowering
