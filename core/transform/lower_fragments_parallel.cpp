// layout_inference's rewrite, part 2 of 2 (see lower_fragments_internal.h): T.Parallel loops
// over fragments become per-thread unrolled loops over the local elements the driving fragment's
// layout gives each thread, and every fragment access inside them a local register index.
#include <functional>
#include <map>
#include <optional>

#include "ir/intrinsics.h"
#include "transform/fragment_access.h"
#include "transform/lower_fragments_internal.h"

namespace tp::transform::frag_lowering {

namespace {

struct FragAccessScan : IRVisitor {
    bool found = false;
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        found |= n.buffer->scope == Scope::Fragment;
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        found |= n.buffer->scope == Scope::Fragment;
        IRVisitor::visit_BufferStore(n, s);
    }
};

std::vector<Expr> squeeze(const Buffer& b, const std::vector<Expr>& idx) { return squeeze_unit_dims(b, idx); }

// Replaces variables by constants and folds what becomes constant (`0 * 64 + h` is `h`).
struct FoldSubstitute : IRMutator {
    std::map<const VarNode*, Expr> values;
    Expr visit_Var(const VarNode& n, const Expr& e) override {
        auto it = values.find(&n);
        return it == values.end() ? e : it->second;
    }
    Expr visit_Binary(const BinaryNode& n, const Expr& e) override {
        Expr a = mutate(n.a), b = mutate(n.b);
        return a == n.a && b == n.b ? e : make_binary(n.op, a, b, n.span);
    }
};

// A T.Parallel nest with extent-1 loops among longer ones (`T.Parallel(block_N, H // heads,
// heads)` where H == heads): their variables are 0, so the nest is the longer loops alone and
// a fragment indexed `s[bn, q * heads + h]` is indexed by them (`s[bn, h]`). Null when there is
// nothing to drop (no unit loop, or only unit loops, which stay a loop of one iteration).
Stmt drop_unit_loops(const ForNode& n) {
    std::vector<const ForNode*> nest = {&n};
    while (auto* inner = nest.back()->body->as<ForNode>()) {
        if (inner->for_kind != ForKind::Parallel) break;
        nest.push_back(inner);
    }
    FoldSubstitute sub;
    size_t kept = 0;
    for (auto* f : nest) {
        if (as_const_int(f->extent) == 1 && as_const_int(f->min) == 0)
            sub.values[f->loop_var.get()] = int_imm(0, f->loop_var->dtype);
        else
            ++kept;
    }
    if (sub.values.empty() || kept == 0) return nullptr;
    Stmt body = sub.mutate(nest.back()->body);
    for (size_t k = nest.size(); k-- > 0;) {
        if (sub.values.count(nest[k]->loop_var.get())) continue;
        auto f = std::make_shared<ForNode>(*nest[k]);
        f->body = body;
        body = f;
    }
    return body;
}

// Whether a loop body stores to shared or global memory or calls something that may (atomics,
// prints): the replicas of a row value must not each do it.
bool writes_memory(const Stmt& body) {
    struct Scan : IRVisitor {
        bool found = false;
        void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
            found |= n.buffer->scope == Scope::Shared || n.buffer->scope == Scope::Global;
            IRVisitor::visit_BufferStore(n, s);
        }
        void visit_Call(const CallNode& n, const Expr& e) override {
            const auto* info = find_intrinsic(n.op);
            found |= info && (info->result == IntrinsicResult::Void || n.op == "atomic_add_prev");
            IRVisitor::visit_Call(n, e);
        }
    } scan;
    scan.visit(body);
    return scan.found;
}

}  // namespace

Expr FragLowerer::frag_index(const Buffer& b, const std::vector<Expr>& full_idx, Span span) {
    const FragLayout* l = layout_of(b);
    const std::vector<Expr>& idx = (l && l->kind == FragLayout::Replicated) ? full_idx : squeeze(b, full_idx);
    if (l && l->kind == FragLayout::Replicated) {
        // Every thread holds the whole fragment: the row-major offset, from any loop.
        Expr off = int_imm(0);
        for (size_t k = 0; k < idx.size(); ++k) {
            // A unit dim is index 0 (constant register indices keep it out of local memory).
            Expr i = as_const_int(b->shape[k]) == 1 ? int_imm(0) : mutate(idx[k]);
            off = make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, off, b->shape[k]), i);
        }
        return off;
    }
    if (ctx && l && follows_driver(*l, ctx->drv, idx, ctx->vars, ctx->ext)) {
        // Under an accumulator, a row (column) vector is read at the row (column) slot.
        if (ctx->drv.kind == FragLayout::Acc && l->kind == FragLayout::Row) return ctx->drv.row_slot_of(ctx->local);
        if (ctx->drv.kind == FragLayout::Acc && l->kind == FragLayout::Col) return ctx->drv.col_slot_of(ctx->local);
        // Under a striped tile, a row value is read at the round of the driver's run.
        if (ctx->drv.kind == FragLayout::Striped && l->kind == FragLayout::StripedRow)
            return make_binary(BinaryOp::FloorDiv, ctx->local, int_imm(l->vec));
        return ctx->local;
    }
    fail("an access to fragment `" + b->name + "` that does not follow its layout (" + (l ? l->describe() : "unknown") + ")", span);
    return int_imm(0);
}

Expr FragLowerer::visit_BufferLoad(const BufferLoadNode& n, const Expr& e) {
    if (n.buffer->scope != Scope::Fragment) return IRMutator::visit_BufferLoad(n, e);
    return std::make_shared<BufferLoadNode>(local_of(n.buffer), std::vector<Expr>{frag_index(n.buffer, n.indices, n.span)}, n.span);
}
Stmt FragLowerer::visit_BufferStore(const BufferStoreNode& n, const Stmt& s) {
    if (n.buffer->scope != Scope::Fragment) return IRMutator::visit_BufferStore(n, s);
    Expr v = mutate(n.value);
    return std::make_shared<BufferStoreNode>(local_of(n.buffer), std::vector<Expr>{frag_index(n.buffer, n.indices, n.span)}, v, n.span);
}

Stmt FragLowerer::visit_For(const ForNode& n, const Stmt& s) {
    if (n.for_kind != ForKind::Parallel || ctx) return IRMutator::visit_For(n, s);
    FragAccessScan scan;
    scan.visit(s);
    if (!scan.found) return IRMutator::visit_For(n, s);
    if (Stmt dropped = drop_unit_loops(n)) return mutate(dropped);
    std::vector<const ForNode*> nest = {&n};
    while (auto* inner = nest.back()->body->as<ForNode>()) {
        if (inner->for_kind != ForKind::Parallel) break;
        nest.push_back(inner);
    }
    std::vector<int64_t> ext;
    for (auto* f : nest) {
        auto e = as_const_int(f->extent);
        if (!e || as_const_int(f->min) != 0) {
            fail("a T.Parallel loop over fragments with a non-constant extent", n.span);
            return s;
        }
        ext.push_back(*e);
    }
    // The driver: the first fragment indexed with all the loop variables in order.
    Ctx c;
    for (auto* f : nest) c.vars.push_back(f->loop_var.get());
    c.ext = ext;
    struct Finder : IRVisitor {
        FragLowerer* self;
        const std::vector<const VarNode*>* vars;
        const std::vector<int64_t>* ext;
        std::optional<FragLayout> found;
        void check(const Buffer& b, const std::vector<Expr>& full_idx) {
            const FragLayout* l = self->layout_of(b);
            if (!found && l && drives_nest(*l, squeeze(b, full_idx), *vars, *ext)) found = *l;
        }
        void visit_BufferLoad(const BufferLoadNode& x, const Expr& e) override {
            check(x.buffer, x.indices);
            IRVisitor::visit_BufferLoad(x, e);
        }
        void visit_BufferStore(const BufferStoreNode& x, const Stmt& st) override {
            check(x.buffer, x.indices);
            IRVisitor::visit_BufferStore(x, st);
        }
    } finder;
    finder.self = this;
    finder.vars = &c.vars;
    finder.ext = &ext;
    finder.visit(nest.back()->body);
    if (!finder.found) {
        // Only replicated fragments: every thread runs the whole nest on its own copy.
        struct OnlyReplicated : IRVisitor {
            FragLowerer* self;
            bool ok = true;
            bool writes_fragment = false;
            void check(const Buffer& b) {
                if (b->scope != Scope::Fragment) return;
                const FragLayout* l = self->layout_of(b);
                ok &= l && l->kind == FragLayout::Replicated;
            }
            void visit_BufferLoad(const BufferLoadNode& x, const Expr& e) override {
                check(x.buffer);
                IRVisitor::visit_BufferLoad(x, e);
            }
            void visit_BufferStore(const BufferStoreNode& x, const Stmt& st) override {
                check(x.buffer);
                writes_fragment |= x.buffer->scope == Scope::Fragment;
                IRVisitor::visit_BufferStore(x, st);
            }
        } only;
        only.self = this;
        only.visit(s);
        if (only.ok && !only.writes_fragment) {
            // It only reads replicated fragments, which every thread holds whole: a loop over
            // shared or global memory like any other, spread over the block by bind_threads
            // (run whole in every thread, a read-modify-write of memory would race).
            auto f = std::make_shared<ForNode>(n);
            f->body = mutate(n.body);
            return f;
        }
        if (only.ok) {
            Stmt body = mutate(nest.back()->body);
            for (size_t k = nest.size(); k-- > 0;) {
                auto f = std::make_shared<ForNode>(*nest[k]);
                f->for_kind = ext[k] <= 64 ? ForKind::Unrolled : ForKind::Serial;
                f->body = body;
                body = f;
            }
            return body;
        }
        fail("a T.Parallel loop whose fragments are not indexed by its loop variables over their whole shape", n.span);
        return s;
    }
    c.drv = *finder.found;
    Span span = n.span;
    const FragLayout& d = c.drv;
    auto make = [&](const Expr& local) -> Stmt {
        ctx = c;
        ctx->local = local;
        Stmt body = mutate(nest.back()->body);
        ctx.reset();
        if (d.kind == FragLayout::Acc) {
            body = std::make_shared<LetStmtNode>(nest[1]->loop_var, d.acc_col(tid, local), body, span);
            return std::make_shared<LetStmtNode>(nest[0]->loop_var, d.acc_row(tid, local), body, span);
        }
        if (d.kind == FragLayout::Row) return std::make_shared<LetStmtNode>(nest[0]->loop_var, d.slot_row(tid, local), body, span);
        if (d.kind == FragLayout::Col) return std::make_shared<LetStmtNode>(nest[0]->loop_var, d.slot_col(tid, local), body, span);
        if (d.kind == FragLayout::StripedRow) {
            // The row's L/V threads all hold it: one of them writes memory for the row.
            if (writes_memory(nest.back()->body))
                body = std::make_shared<IfThenElseNode>(
                    make_binary(BinaryOp::EQ, make_binary(BinaryOp::FloorMod, tid, int_imm(d.threads_per_row())), int_imm(0)), body, nullptr, span);
            return std::make_shared<LetStmtNode>(nest[0]->loop_var, d.striped_row(tid, local), body, span);
        }
        // Striped: element e = d.striped_elem(tid, slot) (round * T + tid for V = 1),
        // unflattened row-major into the loop vars.
        Var e = std::make_shared<VarNode>("tp_e", DataType::int32(), VarKind::Plain, span);
        int64_t stride = 1;
        for (size_t k = nest.size(); k-- > 0;) {
            Expr v = make_binary(BinaryOp::FloorDiv, e, int_imm(stride));
            if (k > 0) v = make_binary(BinaryOp::FloorMod, v, int_imm(ext[k]));
            body = std::make_shared<LetStmtNode>(nest[k]->loop_var, v, body, span);
            stride *= ext[k];
        }
        if (d.elems % (d.threads * std::max<int64_t>(d.vec, 1)) != 0)
            body = std::make_shared<IfThenElseNode>(make_binary(BinaryOp::LT, e, int_imm(d.elems)), body, nullptr, span);
        return std::make_shared<LetStmtNode>(e, d.striped_elem(tid, local), body, span);
    };
    const char* name = d.kind == FragLayout::Acc ? "tp_f" : d.kind == FragLayout::Striped ? "tp_r" : "tp_s";
    return local_loop(d.local_size(), name, make, span);
}

}  // namespace tp::transform::frag_lowering
