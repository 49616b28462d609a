// The consumers' loop rotation of producer_consumer (see producer_consumer.h): a loop body with
// two wgmma groups whose last one only feeds work at the end of the body (FlashAttention's
// O += P V, with O *= correction before it) is software-pipelined by one stage. Iteration k
// issues its first group, then the end of iteration k - 1 (the second group), then the rest
// of iteration k, and waits for k - 1's group last, so that group runs while iteration k's
// work between the two (the softmax) does: FlashAttention-3's intra-warpgroup overlap,
// derived from dependences rather than written by hand.
#include <algorithm>
#include <optional>

#include "transform/producer_consumer_internal.h"
#include "transform/tile_lowering.h"

namespace tp::transform::pc {

namespace {

// Buffers a statement reads and writes (addresses given to calls count as both when written).
struct Access : IRVisitor {
    std::set<const BufferNode*> reads, writes;
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        reads.insert(n.buffer.get());
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        writes.insert(n.buffer.get());
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        if (n.op == "tp.sync_call") return;
        if (n.op == "tp.async_wait") {  // it completes the writes of its group: all it names
            for (size_t i = 1; i < n.args.size(); ++i)
                if (auto* l = addressed(n.args[i])) writes.insert(l->buffer.get());
            return;
        }
        if ((n.op == "tp.addr_w" || n.op == "atomic_add") && !n.args.empty())
            if (auto* l = n.args[0]->as<BufferLoadNode>()) writes.insert(l->buffer.get());
        IRVisitor::visit_Call(n, e);
    }
    void visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        reads.insert(n.src.buffer.get());
        writes.insert(n.dst.buffer.get());
        IRVisitor::visit_CopyOp(n, s);
    }
    void visit_FillOp(const FillOpNode& n, const Stmt& s) override {
        writes.insert(n.dst.buffer.get());
        IRVisitor::visit_FillOp(n, s);
    }
    void visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override {
        reads.insert(n.dst.buffer.get());
        writes.insert(n.dst.buffer.get());
        IRVisitor::visit_AtomicAddOp(n, s);
    }
};

Access access_of(const std::vector<Stmt>& stmts) {
    Access a;
    for (const auto& s : stmts) a.visit(s);
    return a;
}

bool meet(const std::set<const BufferNode*>& a, const std::set<const BufferNode*>& b) {
    return std::any_of(a.begin(), a.end(), [&](const BufferNode* x) { return b.count(x) > 0; });
}

// The buffers an issue writes (its accumulator, the registers it packs) and reads.
void issue_buffers(const CallNode& issue, std::set<const BufferNode*>& writes, std::set<const BufferNode*>& reads) {
    for (const auto& a : issue.args)
        if (auto* l = addressed(a)) (a->as<CallNode>()->op == "tp.addr_w" ? writes : reads).insert(l->buffer.get());
}

// Whether a loop extent is provably at least 1: constants, block indices and ceildiv/min of
// positive pieces (a causal loop's T.min(T.ceildiv(S, N), T.ceildiv((bx + 1) * M, N))).
std::optional<int64_t> lower_bound(const Expr& e) {
    if (auto c = as_const_int(e)) return *c;
    if (auto* v = e->as<VarNode>()) {
        if (v->var_kind == VarKind::BlockIdx || v->var_kind == VarKind::ThreadIdx) return 0;
        return std::nullopt;
    }
    if (auto* c = e->as<CastNode>()) return lower_bound(c->value);
    auto* b = e->as<BinaryNode>();
    if (!b) return std::nullopt;
    auto x = lower_bound(b->a), y = lower_bound(b->b);
    if (!x || !y) return std::nullopt;
    switch (b->op) {
        case BinaryOp::Add: return *x + *y;
        case BinaryOp::Mul: return *x >= 0 && *y >= 0 ? std::optional<int64_t>(*x * *y) : std::nullopt;
        case BinaryOp::Min: return std::min(*x, *y);
        case BinaryOp::Max: return std::max(*x, *y);
        case BinaryOp::FloorDiv: {
            auto d = as_const_int(b->b);
            return d && *d > 0 && *x >= 0 ? std::optional<int64_t>(*x / *d) : std::nullopt;
        }
        default: return std::nullopt;
    }
}
bool at_least_one(const Expr& e) {
    auto lb = lower_bound(e);
    return lb && *lb >= 1;
}

// Replaces the loop variable by a value and gives every variable the statement binds (lets,
// loops) a fresh node: a peeled copy must not bind the same variables as the loop body, since
// passes map a variable to its one binding (simplify inlines lets by variable).
struct Substitute : IRMutator {
    const VarNode* var = nullptr;
    Expr value;
    std::map<const VarNode*, Var> fresh;
    Expr visit_Var(const VarNode& n, const Expr& e) override {
        if (&n == var) return value;
        auto it = fresh.find(&n);
        return it == fresh.end() ? e : it->second;
    }
    Var renew(const Var& v) {
        auto nv = std::make_shared<VarNode>(v->name, v->dtype, v->var_kind, v->span);
        fresh[v.get()] = nv;
        return nv;
    }
    Stmt visit_LetStmt(const LetStmtNode& n, const Stmt&) override {
        Expr value_ = mutate(n.value);
        Var v = renew(n.var);
        return std::make_shared<LetStmtNode>(v, value_, mutate(n.body), n.span);
    }
    Stmt visit_For(const ForNode& n, const Stmt&) override {
        auto f = std::make_shared<ForNode>(n);
        f->min = mutate(n.min);
        f->extent = mutate(n.extent);
        f->loop_var = renew(n.loop_var);
        f->body = mutate(n.body);
        return f;
    }
};

}  // namespace

void wait_channels_first(std::vector<Stmt>& body, const std::set<const BufferNode*>& movable) {
    size_t first = body.size();
    for (size_t j = 0; j < body.size() && first == body.size(); ++j)
        if (evaluated_call(body[j], "tp.async_call")) first = j;
    if (first == body.size()) return;
    std::set<const BufferNode*> writes, reads;
    issue_buffers(*evaluated_call(body[first], "tp.async_call"), writes, reads);
    Access loop;  // a wait names the registers its group reads, but does not write them
    for (const auto& st : body)
        if (!evaluated_call(st, "tp.async_wait")) loop.visit(st);
    const bool invariant_registers =
        std::any_of(reads.begin(), reads.end(), [&](const BufferNode* b) { return b->scope != Scope::Shared && !loop.writes.count(b); });
    if (!invariant_registers) return;
    std::vector<Stmt> ahead, rest;
    for (size_t j = first + 1; j < body.size(); ++j) {
        auto* c = body[j]->as<CopyOpNode>();
        const BufferNode* tile = c ? c->dst.buffer.get() : nullptr;
        bool move = tile && movable.count(tile) && !reads.count(tile);
        if (move) {
            // Nothing between the first group and the copy may touch the tile.
            Access between =
                access_of(std::vector<Stmt>(body.begin() + static_cast<std::ptrdiff_t>(first), body.begin() + static_cast<std::ptrdiff_t>(j)));
            move = !between.reads.count(tile) && !between.writes.count(tile);
        }
        (move ? ahead : rest).push_back(body[j]);
    }
    if (ahead.empty()) return;
    std::vector<Stmt> out(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(first));
    out.insert(out.end(), ahead.begin(), ahead.end());
    out.push_back(body[first]);
    out.insert(out.end(), rest.begin(), rest.end());
    body = std::move(out);
}

bool rotate_body(const ForNode& loop, const std::vector<Stmt>& body, const std::set<const BufferNode*>& channel_tiles, Rotation& out,
                 std::string& why) {
    auto refuse = [&](std::string w) {
        why = std::move(w);
        return false;
    };
    std::vector<size_t> issues;
    for (size_t j = 0; j < body.size(); ++j)
        if (evaluated_call(body[j], "tp.async_call")) issues.push_back(j);
    if (issues.size() < 2) return false;  // one group: the deferred wait is its overlap (nothing to say)
    if (issues.size() != 2) return refuse("the loop issues " + std::to_string(issues.size()) + " wgmma groups; rotation overlaps the second of two");
    if (!evaluated_call(body.back(), "tp.async_wait")) return refuse("the loop does not end by waiting for its last wgmma group");
    const size_t first = issues[0], last = issues[1];
    std::set<const BufferNode*> acc, operands;
    issue_buffers(*evaluated_call(body[last], "tp.async_call"), acc, operands);
    // The body's last statement waits for the last group (it names what that group writes).
    Access tail_wait;
    tail_wait.visit(body.back());
    if (!meet(tail_wait.writes, acc)) return refuse("the loop's last wait is not for its last wgmma group");
    // The tail: the last issue and the statements right before it that update its accumulator
    // or copy the tiles it reads.
    size_t c = last;
    while (c - 1 > first) {
        const Stmt& s = body[c - 1];
        Access a;
        a.visit(s);
        auto* copy = s->as<CopyOpNode>();
        bool feeds = copy && channel_tiles.count(copy->dst.buffer.get()) && operands.count(copy->dst.buffer.get());
        if (!feeds && !meet(a.reads, acc) && !meet(a.writes, acc)) break;
        if (evaluated_call(s, "tp.async_wait")) return refuse("the last group's inputs wait for another wgmma group");
        --c;
    }
    if (c == first + 1) return refuse("nothing between the two wgmma groups could run beside the second");
    // A tile the tail reads that is copied between the two issues (V copied before the softmax)
    // would be waited for and released in iteration k while k's tail reads it in k + 1: the
    // channel's window and ring slot cannot follow the read across the rotation.
    for (size_t j = first + 1; j < c; ++j)
        if (auto* copy = body[j]->as<CopyOpNode>(); copy && channel_tiles.count(copy->dst.buffer.get()) && operands.count(copy->dst.buffer.get()))
            return refuse("`" + copy->dst.buffer->name +
                          "`, which the second wgmma group reads, is copied between the two groups: its ring slot would be released "
                          "before the next iteration reads it (copy it before the first gemm)");
    for (size_t j = c; j < last; ++j)
        if (evaluated_call(body[j], "tp.async_wait")) return refuse("the second wgmma group's inputs wait for the first group");
    if (last + 2 != body.size()) return refuse("statements follow the wait for the last wgmma group");
    // Iteration k's head (through its first issue) now runs before iteration k-1's tail.
    std::vector<Stmt> head(body.begin(), body.begin() + static_cast<std::ptrdiff_t>(first + 1));
    std::vector<Stmt> tail(body.begin() + static_cast<std::ptrdiff_t>(c), body.begin() + static_cast<std::ptrdiff_t>(last + 1));
    tail.push_back(body.back());
    Access h = access_of(head), t = access_of(tail);
    if (meet(h.writes, t.reads) || meet(h.writes, t.writes) || meet(h.reads, t.writes))
        return refuse("the loop's statements up to its first wgmma group touch what the last group reads or writes");

    // Channel copies keep their node: the consumers only wait for them (the producer walks the
    // loop as written), and the node is the channel's identity.
    auto at = [&](const Stmt& s, Expr k) -> Stmt {
        auto* c = s->as<CopyOpNode>();
        if (c && channel_tiles.count(c->dst.buffer.get())) return s;
        Substitute sub;
        sub.var = loop.loop_var.get();
        sub.value = std::move(k);
        return sub.mutate(s);
    };
    const Expr k = loop.loop_var, prev = make_binary(BinaryOp::Sub, loop.loop_var, int_imm(1));
    const Expr end = make_binary(BinaryOp::Add, loop.min, loop.extent);
    out = Rotation{};
    for (size_t j = 0; j < c; ++j) out.prologue.push_back(at(body[j], loop.min));
    auto put = [&](const Stmt& s, bool after) {
        out.body.push_back(s);
        out.after_tail.push_back(after);
    };
    // k - 1's group is waited for right before the first statement of iteration k that touches
    // what it names (the conversion that refills its packed operand), else at the end.
    size_t wait_at = c;
    for (size_t j = first + 1; j < c && wait_at == c; ++j) {
        Access a;
        a.visit(body[j]);
        if (meet(a.reads, tail_wait.writes) || meet(a.writes, tail_wait.writes)) wait_at = j;
    }
    for (size_t j = 0; j <= first; ++j) put(body[j], false);
    for (size_t j = c; j <= last; ++j) put(at(body[j], prev), false);
    for (size_t j = first + 1; j < c; ++j) {
        if (j == wait_at) put(at(body.back(), prev), false);
        put(body[j], j < wait_at && evaluated_call(body[j], "tp.async_wait") != nullptr);
    }
    if (wait_at == c) put(at(body.back(), prev), false);
    for (size_t j = c; j < body.size(); ++j) out.epilogue.push_back(at(body[j], make_binary(BinaryOp::Sub, end, int_imm(1))));
    out.maybe_empty = !at_least_one(loop.extent);
    return true;
}

}  // namespace tp::transform::pc
