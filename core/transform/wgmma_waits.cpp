// wgmma_waits (see wgmma_waits.h).
#include "transform/wgmma_waits.h"

#include <set>

#include "ir/functor.h"
#include "ops/access.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

// The buffers a wait names (its operands are addresses of buffer elements): those the group
// writes (tp.addr_w: the accumulator, packed operand registers) and those it only reads.
struct Named {
    std::set<const BufferNode*> written, read;
};
Named named_buffers(const CallNode& wait) {
    Named out;
    for (size_t i = 1; i < wait.args.size(); ++i)
        if (auto* l = addressed(wait.args[i])) (wait.args[i]->as<CallNode>()->op == "tp.addr_w" ? out.written : out.read).insert(l->buffer.get());
    return out;
}

// What a statement does that a wait may not move past: any access to what the group writes,
// a write to what it reads (reading a tile the group also reads is no conflict), a barrier.
// The tile ops still here say what they write and whether they are a barrier (T.print).
struct Scan : ops::OpAccessVisitor {
    const Named* named = nullptr;
    bool touches = false, barrier = false, nested_async = false;
    int depth = 0;
    void visit_buffer(const Buffer& b) override {
        touches |= named->written.count(b.get()) > 0;
        IRVisitor::visit_buffer(b);
    }
    void write(const BufferNode* b) { touches |= named->read.count(b) > 0 || named->written.count(b) > 0; }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        write(n.buffer.get());
        IRVisitor::visit_BufferStore(n, s);
    }
    void on_op(const StmtNode&, const ops::OpAccess& a) override {
        for (const auto& w : a.writes) write(w.buffer.get());
        barrier |= a.barrier;
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        barrier |= n.op == "__syncthreads" || n.op == "tp.sync_call" || n.op == "tp.async_wait";
        nested_async |= n.op == "tp.async_call" && depth > 0;
        if ((n.op == "tp.addr_w" || n.op == "atomic_add") && !n.args.empty())
            if (auto* l = n.args[0]->as<BufferLoadNode>()) write(l->buffer.get());
        IRVisitor::visit_Call(n, e);
    }
    void visit_For(const ForNode& n, const Stmt& s) override { ++depth; IRVisitor::visit_For(n, s); --depth; }
    void visit_While(const WhileNode& n, const Stmt& s) override { ++depth; IRVisitor::visit_While(n, s); --depth; }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override { ++depth; IRVisitor::visit_IfThenElse(n, s); --depth; }
};

std::vector<Stmt> place(std::vector<Stmt> list) {
    for (size_t w = 0; w < list.size(); ++w) {
        const CallNode* wait = evaluated_call(list[w], "tp.async_wait");
        if (!wait) continue;
        auto named = named_buffers(*wait);
        int64_t pending = as_const_int(wait->args[0]).value_or(0);
        size_t j = w + 1;
        for (; j < list.size(); ++j) {
            Scan sc;
            sc.named = &named;
            sc.visit(list[j]);
            if (sc.touches || sc.barrier || sc.nested_async) break;
            if (evaluated_call(list[j], "tp.async_call")) ++pending;
        }
        if (j == w + 1) continue;
        std::vector<Expr> args = wait->args;
        args[0] = int_imm(pending);
        Stmt moved = std::make_shared<EvaluateNode>(make_call("tp.async_wait", args, DataType::void_(), list[w]->span), list[w]->span);
        list.insert(list.begin() + static_cast<std::ptrdiff_t>(j), moved);
        list.erase(list.begin() + static_cast<std::ptrdiff_t>(w));
        --w;  // the statement now at w has not been looked at
    }
    return list;
}

}  // namespace

PrimFuncPtr wgmma_waits(const PrimFuncPtr& func) {
    auto off = func->attrs.find("tp.disable_async_wgmma");
    if (off != func->attrs.end() && off->second == "true") return func;
    PrimFuncPtr out = rewrite_lists(func, place);
    if (out == func) return func;
    // Groups now run beside other statements (compile() checks their registers were not spilled).
    auto f = std::make_shared<PrimFunc>(*out);
    f->attrs["tp.async_wgmma"] = "1";
    return f;
}

}  // namespace tp::transform
