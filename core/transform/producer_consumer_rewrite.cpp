// producer_consumer's rewrite (see producer_consumer.h): the producer's skeleton of the
// kernel (its loops and branches with each channel's slot acquire and TMA loads), the
// consumers' program (each channel copy a wait, the slot's readers indexing the ring, a
// release after the last of them), the mbarriers and the ring counters.
#include <algorithm>

#include "transform/box_predicate.h"
#include "transform/producer_consumer_internal.h"
#include "transform/tile_lowering.h"

namespace tp::transform::pc {

namespace {

// mbarrier and TMA calls: synchronisation, not accesses insert_syncs must order.
Stmt sync_call(const std::string& callee, std::vector<Expr> args, Span sp) {
    args.insert(args.begin(), std::make_shared<StringImmNode>(callee, sp));
    return std::make_shared<EvaluateNode>(make_call("tp.sync_call", std::move(args), DataType::void_(), sp), sp);
}
Expr load(const Buffer& v) { return std::make_shared<BufferLoadNode>(v, std::vector<Expr>{}); }
Stmt store(const Buffer& v, Expr value, Span sp) { return std::make_shared<BufferStoreNode>(v, std::vector<Expr>{}, std::move(value), sp); }

// Statements the consumers run between a channel's wait and its release read the slot.
// With consumer groups a per-group channel's slot holds one tile per group: [slot, group, ...].
struct RingAccess : IRMutator {
    const BufferNode* tile = nullptr;
    Buffer ring;
    Expr slot;
    Expr group;  // set for a per-group channel
    BufferRegion ring_region(const BufferRegion& r) {
        BufferRegion out = r;
        if (r.buffer.get() != tile) return out;
        out.buffer = ring;
        if (group) out.region.insert(out.region.begin(), Range{group, int_imm(1)});
        out.region.insert(out.region.begin(), Range{slot, int_imm(1)});
        return out;
    }
    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        Expr base = IRMutator::visit_BufferLoad(n, e);
        if (n.buffer.get() != tile) return base;
        auto* l = base->as<BufferLoadNode>();
        std::vector<Expr> idx = {slot};
        if (group) idx.push_back(group);
        idx.insert(idx.end(), l->indices.begin(), l->indices.end());
        return std::make_shared<BufferLoadNode>(ring, idx, n.span);
    }
    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        if (n.src.buffer.get() != tile && n.dst.buffer.get() != tile) return IRMutator::visit_CopyOp(n, s);
        auto c = std::make_shared<CopyOpNode>(n);
        c->src = ring_region(n.src);
        c->dst = ring_region(n.dst);
        return c;
    }
    Stmt visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override {
        auto* r = std::get_if<BufferRegion>(&n.src);
        if (!r || r->buffer.get() != tile) return IRMutator::visit_AtomicAddOp(n, s);
        return std::make_shared<AtomicAddOpNode>(n.dst, ring_region(*r), n.span);
    }
};

struct HasChannel : IRVisitor {
    const Plan* plan = nullptr;
    bool found = false;
    void visit_CopyOp(const CopyOpNode& n, const Stmt&) override { found |= plan->by_copy.count(&n) > 0; }
};

struct UsesVar : IRVisitor {
    const VarNode* v = nullptr;
    bool found = false;
    void visit_Var(const VarNode& n, const Expr&) override { found |= &n == v; }
};

class Builder {
public:
    const Plan& plan;
    Span span;
    DiagnosticEngine& diags;  // remarks where a loop cannot be rotated
    Buffer mbar;
    // Each role keeps its own ring position per channel: the slot (rings of two or more) and
    // the parity of the slot's current use.
    struct Role {
        std::vector<Buffer> slot, phase;
    } prod, cons;

    Builder(const Plan& p, Span sp, DiagnosticEngine& d) : plan(p), span(sp), diags(d) {
        mbar = std::make_shared<BufferNode>("tp_mbar", DataType(DataType::UInt, 64), std::vector<Expr>{int_imm(plan.barriers)},
                                            Scope::Shared, sp);
        for (Role* r : {&prod, &cons}) {
            const char* who = r == &prod ? "p" : "c";
            for (size_t i = 0; i < plan.channels.size(); ++i) {
                const Channel& ch = plan.channels[i];
                if (ch.leader != i) {  // a group shares its leader's position
                    r->slot.push_back(r->slot[ch.leader]);
                    r->phase.push_back(r->phase[ch.leader]);
                    continue;
                }
                std::string base = "tp_" + ch.tile->name + "_" + who;
                r->slot.push_back(ch.depth > 1 ? counter(base + "_slot") : nullptr);
                r->phase.push_back(counter(base + "_phase"));
            }
        }
    }

    Buffer counter(const std::string& name) {
        return std::make_shared<BufferNode>(name, DataType::int32(), std::vector<Expr>{}, Scope::Var, span);
    }
    size_t index_of(const Channel& ch) const { return static_cast<size_t>(&ch - plan.channels.data()); }
    bool is_leader(const Channel& ch) const { return ch.leader == index_of(ch); }
    Expr slot(const Role& r, const Channel& ch) const { return ch.depth > 1 ? load(r.slot[index_of(ch)]) : int_imm(0); }
    Expr phase(const Role& r, const Channel& ch) const { return load(r.phase[index_of(ch)]); }
    Expr barrier(const Role& r, const Channel& ch, bool empty) const {
        Expr idx = make_binary(BinaryOp::Add, int_imm(ch.bar + (empty ? ch.depth : 0)), slot(r, ch));
        return buffer_addr(mbar, {idx}, true, span);
    }
    // The next use of the ring: the slot after this one, the parity flipping on wrap-around.
    Stmt advance(const Role& r, const Channel& ch) const {
        size_t i = index_of(ch);
        Expr ph = load(r.phase[i]), one = int_imm(1);
        if (ch.depth == 1) return store(r.phase[i], make_binary(BinaryOp::BitXor, ph, one), span);
        Expr next = make_binary(BinaryOp::Add, load(r.slot[i]), one);
        Expr wrap = make_binary(BinaryOp::EQ, next, int_imm(ch.depth));
        return make_seq({store(r.phase[i], make_select(wrap, make_binary(BinaryOp::BitXor, ph, one), ph), span),
                         store(r.slot[i], make_select(wrap, int_imm(0), next), span)},
                        span);
    }

    // ---------------------------------------------------------------------- producer
    Stmt produce(const Channel& ch) const {
        Span sp = ch.copy->span;
        std::vector<Stmt> out;
        if (is_leader(ch))
            out.push_back(sync_call("tp::ring_acquire",
                                    {barrier(prod, ch, true), barrier(prod, ch, false), phase(prod, ch), int_imm(ch.group_bytes)}, sp));
        const bool one_row = ch.tile->shape.size() == 1;
        // A per-group tile is loaded once per group, with the group's logical block index.
        const int64_t loads = ch.per_group ? plan.groups.count : 1;
        for (int64_t g = 0; g < loads; ++g) {
            std::vector<Expr> coords = ch.tma.coords;
            if (ch.per_group) {
                const auto& gr = plan.groups;
                std::map<const VarNode*, Expr> logical = {
                    {gr.block_var.get(), make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, gr.block_var, int_imm(gr.count)), int_imm(g))}};
                for (auto& c : coords) c = substitute(c, logical);
            }
            for (int64_t p = 0; p < ch.tma.boxes; ++p) {
                Expr col = int_imm(p * ch.tma.box_cols);
                std::vector<Expr> idx = one_row ? std::vector<Expr>{col} : std::vector<Expr>{int_imm(0), col};
                if (ch.per_group) idx.insert(idx.begin(), int_imm(g));
                if (ch.depth > 1) idx.insert(idx.begin(), slot(prod, ch));
                std::vector<Expr> args = {buffer_addr(ch.ring, idx, true, sp),
                                          make_call("tp.tma_desc", {int_imm(ch.map)}, DataType(DataType::Handle, 64), sp), barrier(prod, ch, false)};
                for (size_t d = 0; d < coords.size(); ++d) args.push_back(d == 0 ? make_binary(BinaryOp::Add, coords[0], col) : coords[d]);
                out.push_back(sync_call("tp::tma_load", args, sp));
            }
        }
        if (ch.last) out.push_back(advance(prod, ch));
        return make_seq(out, sp);
    }

    bool has_channel(const Stmt& s) const {
        HasChannel h;
        h.plan = &plan;
        h.visit(s);
        return h.found;
    }

    // The kernel's control flow down to the channel copies, nothing else.
    Stmt skeleton(const Stmt& s) const {
        if (!s || !has_channel(s)) return nullptr;
        if (auto* q = s->as<SeqStmtNode>()) {
            std::vector<Stmt> out;
            for (const auto& c : q->seq)
                if (Stmt k = skeleton(c)) out.push_back(k);
            return make_seq(out, q->span);
        }
        if (auto* c = s->as<CopyOpNode>()) return produce(plan.channels[plan.by_copy.at(c)]);
        if (auto* f = s->as<ForNode>()) return std::make_shared<ForNode>(f->loop_var, f->min, f->extent, ForKind::Serial, skeleton(f->body), f->span);
        if (auto* i = s->as<IfThenElseNode>()) {
            Stmt t = skeleton(i->then_case), e = skeleton(i->else_case);
            return std::make_shared<IfThenElseNode>(i->cond, t ? t : make_seq({}, i->span), e, i->span);
        }
        if (auto* l = s->as<LetStmtNode>()) {
            Stmt b = skeleton(l->body);
            UsesVar u;
            u.v = l->var.get();
            u.visit(b);
            return u.found ? std::make_shared<LetStmtNode>(l->var, l->value, b, l->span) : b;
        }
        if (auto* a = s->as<AllocateNode>()) return skeleton(a->body);
        return nullptr;
    }

    // ---------------------------------------------------------------------- consumers
    // A loop whose last statement waits for its last wgmma group, when nothing else in the
    // loop touches what that group names, leaves the group running across the back edge: the
    // next iteration waits for it (one more pending group) right after issuing its own, and
    // only then releases the ring slots it read; the loop's epilogue waits for the last one.
    struct LoopTail {
        const CallNode* wait = nullptr;
        Buffer in_flight;                           // a previous iteration's group still runs
        std::map<const Channel*, Buffer> prev_slot;  // the slots that group reads
    };

    bool is_channel_copy(const Stmt& s) const {
        auto* c = s->as<CopyOpNode>();
        return c && plan.by_copy.count(c);
    }

    // A copy of a wait with `extra` more pending groups, naming only its registers: the ring
    // slots it named are released by the statements placed after it.
    static Stmt register_wait(const CallNode& wait, int64_t extra, Span sp, bool keep_shared = false) {
        std::vector<Expr> args = {int_imm(as_const_int(wait.args[0]).value_or(0) + extra)};
        for (size_t a = 1; a < wait.args.size(); ++a) {
            auto* l = addressed(wait.args[a]);
            if (l && (keep_shared || l->buffer->scope != Scope::Shared)) args.push_back(wait.args[a]);
        }
        return std::make_shared<EvaluateNode>(make_call("tp.async_wait", args, DataType::void_(), sp), sp);
    }

    bool defer_tail(const ForNode& loop, const std::vector<Stmt>& list, LoopTail& tail) {
        if (!plan.deferred.count(&loop)) return false;
        std::set<const BufferNode*> tiles;
        for (const auto& s : list)
            if (auto* c = s->as<CopyOpNode>(); c && plan.by_copy.count(c)) tiles.insert(c->dst.buffer.get());
        tail.wait = deferrable_tail(list, tiles);
        if (!tail.wait) return false;
        tail.in_flight = counter("tp_group_in_flight");
        return true;
    }

    // Whether the loop's consumer warpgroups should take turns issuing their wgmma groups
    // (ping-pong): with two or more of them and other work in the loop (a softmax), one
    // warpgroup's work then overlaps the other's tensor-core time instead of colliding with it.
    bool wants_turns(const std::vector<Stmt>& list) const {
        if (plan.consumer_threads < 256) return false;
        bool issue = false, other = false;
        for (const auto& s : list) {
            if (evaluated_call(s, "tp.async_call")) issue = true;
            else if (!evaluated_call(s, "tp.async_wait") && !is_channel_copy(s)) other = true;
        }
        return issue && other;
    }
    // The consumer warpgroup's index among all of them. Inside a consumer group the thread
    // variable counts within the group, so the group's index comes first.
    Expr warpgroup() const {
        Expr wg = make_binary(BinaryOp::FloorDiv, plan.tid, int_imm(128));
        if (!plan.groups.on()) return wg;
        return make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, plan.groups.var, int_imm(plan.groups.threads / 128)), wg);
    }
    Stmt turn_barrier(const char* op, Expr id) const {
        return sync_call(op, {make_binary(BinaryOp::Add, int_imm(2), std::move(id)), int_imm(256)}, span);
    }
    // A turn covers the statements from one issue to the last issue after it that no wait
    // separates from it (the rotated body's two issues are one turn, as in FlashAttention-3).
    std::vector<Stmt> with_turns(const std::vector<Stmt>& body) const {
        const int64_t groups = plan.consumer_threads / 128;
        Expr next = make_binary(BinaryOp::FloorMod, make_binary(BinaryOp::Add, warpgroup(), int_imm(1)), int_imm(groups));
        std::vector<Stmt> out;
        for (size_t i = 0; i < body.size(); ++i) {
            if (!contains_call(body[i], "tp.async_call")) {
                out.push_back(body[i]);
                continue;
            }
            size_t end = i;
            for (size_t j = i + 1; j < body.size() && !contains_call(body[j], "tp.async_wait"); ++j)
                if (contains_call(body[j], "tp.async_call")) end = j;
            out.push_back(turn_barrier("tp::named_barrier_sync", warpgroup()));
            for (size_t j = i; j <= end; ++j) out.push_back(body[j]);
            out.push_back(turn_barrier("tp::named_barrier_arrive", next));
            i = end;
        }
        return out;
    }
    static bool contains_call(const Stmt& s, const char* op) {
        struct C : IRVisitor {
            const char* op;
            bool found = false;
            void visit_Call(const CallNode& n, const Expr& e) override {
                found |= n.op == op;
                IRVisitor::visit_Call(n, e);
            }
        } c;
        c.op = op;
        c.visit(s);
        return c.found;
    }

    Stmt consume_body(const Stmt& s) {
        std::vector<Stmt> list;
        flatten_seq(s, list);
        return make_seq(consume_list(list, nullptr), s ? s->span : span);
    }

    Stmt consume_loop(const ForNode& f) {
        std::vector<Stmt> list;
        flatten_seq(f.body, list);
        const bool channels = has_channel(f.body);
        LoopTail tail;
        const bool defer = channels && defer_tail(f, list, tail);
        const bool turns = channels && plan.turns && wants_turns(list);
        Rotation rot;
        std::string why;
        const bool rotate = channels && !defer && plan.rotate && rotate_body(f, list, channel_tiles(list), rot, why);
        if (!why.empty())
            diags.report(DiagKind::FastPathNotTaken, f.span,
                         {"software pipelining of the consumer loop (its last wgmma group overlapping the next iteration)", why,
                          "each iteration waits for its last group before the next begins"});
        // Only a loop left as written: a rotated one already waits for its tiles in the order
        // that runs correctly, and moving a wait into its head would stop the rotation.
        if (channels && !rotate && !defer) wait_channels_first(list, lone_channel_tiles(list));
        std::vector<Stmt> body = rotate ? rotated_body(rot) : consume_list(list, defer ? &tail : nullptr);
        if (turns) body = with_turns(body);
        auto n = std::make_shared<ForNode>(f);
        n->body = make_seq(body, f.body->span);
        // The ring replaces the cp.async stages of a loop whose copies became channels.
        if (channels && n->for_kind == ForKind::Pipelined) {
            n->for_kind = ForKind::Serial;
            n->num_stages = 0;
            n->order.clear();
            n->stage.clear();
            n->group.clear();
        }
        Stmt loop = n;
        if (rotate) {
            // The first iteration is peeled before the loop, the last one's group after it.
            n->min = make_binary(BinaryOp::Add, f.min, int_imm(1));
            n->extent = make_binary(BinaryOp::Sub, f.extent, int_imm(1));
            std::vector<Stmt> pro = consume_list(rot.prologue, nullptr), epi = consume_list(rot.epilogue, nullptr);
            if (turns) {
                pro = with_turns(pro);
                epi = with_turns(epi);
            }
            pro.push_back(n);
            pro.insert(pro.end(), epi.begin(), epi.end());
            loop = make_seq(pro, f.span);
            if (rot.maybe_empty) loop = std::make_shared<IfThenElseNode>(make_binary(BinaryOp::GT, f.extent, int_imm(0)), loop, nullptr, f.span);
        }
        std::vector<Stmt> out;
        const int64_t groups = plan.consumer_threads / 128;
        Expr is_wg = [&](int64_t g) { return make_binary(BinaryOp::EQ, warpgroup(), int_imm(g)); }(groups - 1);
        // The last warpgroup lets the first take the first turn; the first consumes the last
        // warpgroup's final hand-over after the loop, so every barrier ends balanced.
        if (turns) out.push_back(std::make_shared<IfThenElseNode>(is_wg, turn_barrier("tp::named_barrier_arrive", int_imm(0)), nullptr, span));
        out.push_back(loop);
        if (turns)
            out.push_back(std::make_shared<IfThenElseNode>(make_binary(BinaryOp::EQ, warpgroup(), int_imm(0)),
                                                           turn_barrier("tp::named_barrier_sync", int_imm(0)), nullptr, span));
        if (!defer) return make_seq(out, f.span);
        out.push_back(register_wait(*tail.wait, 0, span));
        for (const auto& [ch, prev] : tail.prev_slot) {
            Expr idx = make_binary(BinaryOp::Add, int_imm(ch->bar + ch->depth), load(prev));
            out.push_back(std::make_shared<IfThenElseNode>(load(tail.in_flight),
                                                           sync_call(release_fn(*ch), {buffer_addr(mbar, {idx}, true, span)}, span), nullptr, span));
        }
        Stmt seq = make_seq(out, f.span);
        for (const auto& [ch, prev] : tail.prev_slot) seq = std::make_shared<AllocateNode>(prev, int_imm(0), seq, span);
        return std::make_shared<AllocateNode>(tail.in_flight, int_imm(0), seq, span);
    }

    // Tiles of the channels in `list` that are not grouped with others (a group keeps its
    // members adjacent).
    std::set<const BufferNode*> lone_channel_tiles(const std::vector<Stmt>& list) const {
        std::set<const BufferNode*> tiles;
        for (const auto& s : list) {
            auto* c = s->as<CopyOpNode>();
            auto it = c ? plan.by_copy.find(c) : plan.by_copy.end();
            if (it == plan.by_copy.end()) continue;
            bool alone = plan.channels[it->second].leader == it->second;
            for (size_t i = 0; i < plan.channels.size() && alone; ++i) alone = i == it->second || plan.channels[i].leader != it->second;
            if (alone) tiles.insert(c->dst.buffer.get());
        }
        return tiles;
    }

    std::set<const BufferNode*> channel_tiles(const std::vector<Stmt>& list) const {
        std::set<const BufferNode*> tiles;
        for (const auto& s : list)
            if (auto* c = s->as<CopyOpNode>(); c && plan.by_copy.count(c)) tiles.insert(c->dst.buffer.get());
        return tiles;
    }

    // The rotated loop body's consumer code: waits for iteration k's first group allow one
    // more pending group, k - 1's, issued after it.
    std::vector<Stmt> rotated_body(const Rotation& rot) {
        std::vector<size_t> origin;
        std::vector<Stmt> stmts = consume_list(rot.body, nullptr, &origin);
        for (size_t i = 0; i < stmts.size(); ++i)
            if (auto* w = evaluated_call(stmts[i], "tp.async_wait"); w && rot.after_tail[origin[i]]) stmts[i] = register_wait(*w, 1, stmts[i]->span, true);
        return stmts;
    }

    Stmt consume(const Stmt& s) {
        if (auto* f = s->as<ForNode>()) return consume_loop(*f);
        if (auto* i = s->as<IfThenElseNode>())
            return std::make_shared<IfThenElseNode>(i->cond, consume_body(i->then_case), i->else_case ? consume_body(i->else_case) : nullptr,
                                                    i->span);
        if (auto* l = s->as<LetStmtNode>()) return std::make_shared<LetStmtNode>(l->var, l->value, consume_body(l->body), l->span);
        if (auto* a = s->as<AllocateNode>()) return std::make_shared<AllocateNode>(a->buffer, a->init, consume_body(a->body), a->span);
        if (auto* w = s->as<WhileNode>()) return std::make_shared<WhileNode>(w->cond, consume_body(w->body), w->span);
        return s;
    }

    // `origin` (when given) receives, for every statement returned, the index in `list` of the
    // statement it came from (a channel's wait its copy's, a release the last reader's).
    std::vector<Stmt> consume_list(const std::vector<Stmt>& list, LoopTail* tail, std::vector<size_t>* origin = nullptr) {
        // A group's window opens at its leader's copy (the followers' copies only join it)
        // and closes after the last statement that reads any of its tiles.
        struct Window {
            const Channel* ch;                    // the group's leader
            std::vector<const Channel*> members;  // the leader first
            size_t from, to;                      // the copy, and the last statement that reads a tile
        };
        std::vector<Window> windows;
        std::set<size_t> joined;  // followers' copies: no statement of their own
        for (size_t i = 0; i < list.size(); ++i) {
            auto* c = list[i]->as<CopyOpNode>();
            if (!c || !plan.by_copy.count(c)) continue;
            const Channel& ch = plan.channels[plan.by_copy.at(c)];
            Window* w = nullptr;
            if (!is_leader(ch))
                for (auto& open : windows)
                    if (open.ch == &plan.channels[ch.leader]) w = &open;
            if (w) {
                joined.insert(i);
            } else {
                windows.push_back({&ch, {}, i, i});
                w = &windows.back();
            }
            w->members.push_back(&ch);
            for (size_t j = i + 1; j < list.size(); ++j)
                if (references(list[j], ch.tile.get()) > 0) w->to = std::max(w->to, j);
        }
        const size_t last = list.empty() ? 0 : list.size() - 1;
        std::vector<Stmt> out;
        for (size_t j = 0; j < list.size(); ++j) {
            if (origin) origin->resize(out.size(), j > 0 ? j - 1 : 0);
            const Window* opened = nullptr;
            for (const auto& w : windows)
                if (w.from == j) opened = &w;
            if (opened) {
                const Channel& ch = *opened->ch;
                out.push_back(sync_call("tp::mbar_wait", {barrier(cons, ch, false), phase(cons, ch)}, ch.copy->span));
            } else if (joined.count(j)) {
                // waited for with its group's leader
            } else if (tail && j == last) {
                // The previous iteration's group: one newer group (this iteration's) may run on.
                out.push_back(register_wait(*tail->wait, 1, list[j]->span));
            } else {
                Stmt t = consume(list[j]);
                for (const auto& w : windows) {
                    if (w.from >= j || w.to < j || w.ch->depth == 1) continue;
                    for (const Channel* m : w.members) {
                        RingAccess ra;
                        ra.tile = m->tile.get();
                        ra.ring = m->ring;
                        ra.slot = slot(cons, *m);
                        if (m->per_group) ra.group = plan.groups.var;
                        t = ra.mutate(t);
                    }
                }
                out.push_back(t);
            }
            for (const auto& w : windows) {
                if (w.to != j) continue;
                if (tail && j == last && w.ch->depth > 1) {
                    Buffer& prev = tail->prev_slot[w.ch];
                    if (!prev) prev = counter("tp_" + w.ch->tile->name + "_c_prev");
                    Expr idx = make_binary(BinaryOp::Add, int_imm(w.ch->bar + w.ch->depth), load(prev));
                    out.push_back(std::make_shared<IfThenElseNode>(
                        load(tail->in_flight), sync_call(release_fn(*w.ch), {buffer_addr(mbar, {idx}, true, span)}, w.ch->copy->span), nullptr,
                        span));
                    out.push_back(store(prev, slot(cons, *w.ch), span));
                } else {
                    out.push_back(sync_call(release_fn(*w.ch), {barrier(cons, *w.ch, true)}, w.ch->copy->span));
                }
                out.push_back(advance(cons, *w.ch));
            }
        }
        if (origin) origin->resize(out.size(), last);
        if (tail) out.push_back(store(tail->in_flight, int_imm(1), span));
        return out;
    }

    // ---------------------------------------------------------------------- the block
    Stmt with_counters(const Role& r, Stmt body) const {
        for (size_t i = plan.channels.size(); i-- > 0;) {
            if (plan.channels[i].leader != i) continue;
            body = std::make_shared<AllocateNode>(r.phase[i], int_imm(0), body, span);
            if (r.slot[i]) body = std::make_shared<AllocateNode>(r.slot[i], int_imm(0), body, span);
        }
        return body;
    }

    // A leader releases its whole group's slot: fenced when any member's tile is read through
    // the generic proxy (the arrive alone orders lane 0's reads, not the async refill after).
    std::string release_fn(const Channel& c) const {
        for (const auto& ch : plan.channels)
            if (ch.leader == c.leader && ch.generic_reads) return "tp::ring_release_generic";
        return "tp::ring_release";
    }

    Stmt init_barriers() const {
        std::vector<Stmt> init;
        for (const auto& ch : plan.channels)
            for (int s = 0; s < (is_leader(ch) ? ch.depth : 0); ++s) {
                init.push_back(sync_call("tp::mbar_init", {buffer_addr(mbar, {int_imm(ch.bar + s)}, true, span), int_imm(1)}, span));
                init.push_back(sync_call("tp::mbar_init", {buffer_addr(mbar, {int_imm(ch.bar + ch.depth + s)}, true, span),
                                                           int_imm(plan.consumer_threads / 32)},
                                         span));
            }
        init.push_back(sync_call("tp::mbar_fence_init", {}, span));
        Expr first = make_binary(BinaryOp::EQ, plan.tid, int_imm(0));
        return make_seq({std::make_shared<IfThenElseNode>(first, make_seq(init, span), nullptr, span),
                         std::make_shared<EvaluateNode>(make_call("__syncthreads", {}, DataType::void_(), span), span)},
                        span);
    }

    // A persistent block's loop over its work units: unit pid + i * gridDim.x for i from 0
    // while it is below the grid's block count, the original block indices bound from it. With
    // a paired axis each unit is two steps of the loop: block c of the halved axis, then its
    // mirror G - 1 - c (skipped where it is c itself, the middle block of an odd G).
    Stmt per_unit(Stmt body) const {
        const auto& p = plan.persistent;
        if (!p.on) return body;
        const auto unit_grid = persistent_unit_grid(p);
        Expr units = persistent_units(p);
        Expr np = make_call("tp.num_programs", {}, DataType::int32(), span);
        auto i = std::make_shared<VarNode>("tp_unit", DataType::int32(), VarKind::Loop, span);
        const bool paired = p.paired_axis >= 0;
        Expr step = paired ? make_binary(BinaryOp::Shr, i, int_imm(1)) : Expr(i);
        Expr mirror = make_binary(BinaryOp::EQ, make_binary(BinaryOp::BitAnd, i, int_imm(1)), int_imm(1));
        if (paired && as_const_int(p.grid[p.paired_axis]).value_or(0) % 2 == 1) {
            // The middle block of an odd axis is its own mirror: the second step skips it.
            Expr middle = make_binary(BinaryOp::EQ, make_binary(BinaryOp::Mul, p.block_vars[p.paired_axis], int_imm(2)),
                                      make_binary(BinaryOp::Sub, p.grid[p.paired_axis], int_imm(1)));
            body = std::make_shared<IfThenElseNode>(
                std::make_shared<UnaryNode>(UnaryOp::Not, make_binary(BinaryOp::And, mirror, middle), DataType::boolean(), span), body, nullptr,
                span);
        }
        Expr unit = make_binary(BinaryOp::Add, p.pid, make_binary(BinaryOp::Mul, step, np));
        Expr gx = unit_grid[0], gy = unit_grid.size() > 1 ? unit_grid[1] : int_imm(1);
        for (size_t a = p.block_vars.size(); a-- > 0;) {
            Expr coord = make_call("tp.sync_call", {std::make_shared<StringImmNode>("tp::tile_coord", span), unit, gx, gy,
                                                    int_imm(p.panel), int_imm(p.column_order ? 1 : 0), int_imm(static_cast<int64_t>(a))},
                                   DataType::int32(), span);
            if (static_cast<int>(a) == p.paired_axis)
                coord = std::make_shared<SelectNode>(mirror, make_binary(BinaryOp::Sub, make_binary(BinaryOp::Sub, p.grid[a], int_imm(1)), coord),
                                                     coord, DataType::int32(), span);
            body = std::make_shared<LetStmtNode>(p.block_vars[a], coord, body, span);
        }
        // ceildiv(units - pid, gridDim.x): the pid < units the launcher guarantees keeps it >= 1.
        Expr extent = make_binary(BinaryOp::FloorDiv, make_binary(BinaryOp::Add, make_binary(BinaryOp::Sub, units, p.pid),
                                                                  make_binary(BinaryOp::Sub, np, int_imm(1))),
                                  np);
        if (paired) extent = make_binary(BinaryOp::Mul, extent, int_imm(2));
        return std::make_shared<ForNode>(i, int_imm(0), extent, ForKind::Serial, body, span);
    }

    Stmt build(const Stmt& top) {
        std::vector<Stmt> issue;
        for (size_t m = 0; m < plan.maps.size(); ++m)
            issue.push_back(sync_call("tp::tma_prefetch_desc", {make_call("tp.tma_desc", {int_imm(static_cast<int64_t>(m))},
                                                                            DataType(DataType::Handle, 64), span)},
                                      span));
        issue.push_back(per_unit(skeleton(top)));
        // One thread of the producer warpgroup issues everything; the others only give their
        // registers back.
        Expr elected = make_binary(BinaryOp::EQ, plan.tid, int_imm(plan.consumer_threads));
        Stmt producer = with_counters(prod, std::make_shared<IfThenElseNode>(elected, make_seq(issue, span), nullptr, span));
        Stmt consumer = with_counters(cons, per_unit(group_owned_accesses(consume_body(top), plan)));
        const auto& g = plan.groups;
        auto roles = std::make_shared<WarpRolesNode>(g.on() ? g.threads : plan.consumer_threads, 128, plan.consumer_regs, plan.producer_regs,
                                                     producer, consumer, span);
        if (g.on()) {
            roles->consumer_groups = g.count;
            roles->group_axis = g.axis;
            roles->group_var = g.var;
        }
        return std::make_shared<AllocateNode>(mbar, nullptr, make_seq({init_barriers(), roles}, span), span);
    }
};

}  // namespace

Stmt rewrite_kernel_body(const Stmt& top, const Plan& plan, Span span, DiagnosticEngine& diags) {
    Builder b(plan, span, diags);
    return b.build(top);
}

}  // namespace tp::transform::pc
