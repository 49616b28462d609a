// producer_consumer (see producer_consumer.h): which copies become channels, whether the
// kernel can take the split (block shape, shared memory), and the remarks when it cannot.
// The rewrite itself is producer_consumer_rewrite.cpp.
#include "transform/producer_consumer.h"

#include <algorithm>
#include <sstream>

#include "transform/producer_consumer_internal.h"
#include "transform/shared_budget.h"

namespace tp::transform {

using namespace ir;
using namespace pc;

namespace pc {

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

struct WriteFinder : IRVisitor {
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
    void visit_CopyOp(const CopyOpNode& n, const Stmt&) override { found |= n.dst.buffer.get() == b; }
    void visit_FillOp(const FillOpNode& n, const Stmt&) override { found |= n.dst.buffer.get() == b; }
    void visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt&) override { found |= n.dst.buffer.get() == b; }
    void visit_ReduceOp(const ReduceOpNode& n, const Stmt&) override { found |= n.dst.get() == b; }
};

// Global tensors the kernel stores to: a read of any other one may steer the producer.
struct GlobalWrites : IRVisitor {
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
    void visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        if (n.dst.buffer->scope == Scope::Global) out.insert(n.dst.buffer.get());
        IRVisitor::visit_CopyOp(n, s);
    }
    void visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override {
        if (n.dst.buffer->scope == Scope::Global) out.insert(n.dst.buffer.get());
        IRVisitor::visit_AtomicAddOp(n, s);
    }
};

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

// Walks the kernel with the set of variables the producer can bind, and collects every
// global -> shared copy with why it can or cannot be a channel.
struct Finder : IRVisitor {
    const Target* target = nullptr;
    std::set<const BufferNode*> written_globals;
    std::set<const VarNode*> pure;
    std::vector<const ForNode*> loops;  // enclosing loops, innermost last
    int impure_depth = 0;               // > 0 inside control flow the producer cannot follow
    struct Candidate {
        const CopyOpNode* copy;
        const ForNode* pipeline;  // the innermost enclosing loop when it is T.Pipelined
        ops::TmaLoadPlan tma;
        std::string why;
    };
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

struct Launch {
    const KernelLaunchNode* node = nullptr;
    Stmt top;  // the statements under the launch's allocations and bindings
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
std::string check_uses(const Finder::Candidate& c, const Stmt& top, const ListIndex& lists) {
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

}  // namespace

const CallNode* deferrable_tail(const std::vector<Stmt>& body, const std::set<const BufferNode*>& ring_tiles) {
    auto* e = body.empty() ? nullptr : body.back()->as<EvaluateNode>();
    auto* wait = e ? e->value->as<CallNode>() : nullptr;
    if (!wait || wait->op != "tp.async_wait") return nullptr;
    for (size_t a = 1; a < wait->args.size(); ++a) {
        auto* addr = wait->args[a]->as<CallNode>();
        auto* l = addr && !addr->args.empty() ? addr->args[0]->as<BufferLoadNode>() : nullptr;
        if (!l) return nullptr;
        const BufferNode* b = l->buffer.get();
        if (b->scope == Scope::Shared) {
            if (!ring_tiles.count(b)) return nullptr;  // only ring slots keep a tile safe while it runs
            continue;
        }
        for (size_t j = 0; j + 1 < body.size(); ++j) {
            auto* ej = body[j]->as<EvaluateNode>();
            auto* cj = ej ? ej->value->as<CallNode>() : nullptr;
            bool issue = cj && cj->op == "tp.async_call";
            if (!issue && references(body[j], b) > 0) return nullptr;
        }
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

}  // namespace pc

namespace {

// setmaxnreg budgets: the producer keeps 24 registers (it only computes coordinates) and the
// consumers take what it gives back. setmaxnreg moves registers only within what the block was
// launched with: ptxas gives a kernel with setmaxnreg the most __launch_bounds__(T, 1) allows,
// a multiple of 8 with T * R <= 64K, so an increase beyond that pool would wait forever (four
// consumer warpgroups: 640 threads of 96 registers can grow the consumers to 112, not 120).
// With one consumer warpgroup the 256-thread block already allows 255, so nothing moves.
void register_split(Plan& plan) {
    if (plan.consumer_threads <= 128) return;
    const int64_t block = plan.consumer_threads + 128;
    const int64_t launched = std::min<int64_t>(255, 65536 / block) / 8 * 8;
    plan.producer_regs = 24;
    int64_t c = (launched * block - 128 * plan.producer_regs) / plan.consumer_threads / 8 * 8;
    plan.consumer_regs = static_cast<int>(std::min<int64_t>(240, c));
    if (plan.consumer_regs <= launched) plan.producer_regs = plan.consumer_regs = 0;  // nothing to gain
}

}  // namespace

PrimFuncPtr producer_consumer(const PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags) {
    if (!func || !target.has_wgmma() || func->attrs.count("tp.ws") || func->attrs.count("tp.ws.consumers")) return func;
    auto flag = [&](const char* k) {
        auto it = func->attrs.find(k);
        return it != func->attrs.end() && it->second == "true";
    };
    Launch launch = find_launch(func->body);
    if (!launch.node || launch.node->thread_vars.empty()) return func;
    Finder f;
    f.target = &target;
    GlobalWrites gw;
    gw.visit(func->body);
    f.written_globals = gw.out;
    f.visit(launch.top);
    if (f.pipelines.empty()) return func;
    const ForNode* where = f.pipelines.front();
    auto refuse = [&](const std::string& why) {
        diags.report(DiagKind::FastPathNotTaken, where->span,
                     {"warp specialization (a TMA producer warpgroup and consumer warpgroups)", why, "the loop keeps cp.async stages"});
        return func;
    };
    if (flag("tl.disable_warp_specialized")) return func;
    if (flag("tl.disable_tma_lower")) return refuse("`tl.disable_tma_lower` is set");
    const KernelLaunchNode& k = *launch.node;
    const int64_t threads = k.num_threads();
    if (k.threads.size() > 1 && threads != k.threads[0]) return refuse("the block is not one-dimensional");
    if (threads % 128 != 0) return refuse("the consumers must be whole warpgroups; the block has " + std::to_string(threads) + " threads");
    if (threads + 128 > 1024) return refuse("a producer warpgroup beside " + std::to_string(threads) + " threads exceeds 1024 threads");
    if (has_tile_print(launch.top)) return refuse("T.print of a tile needs every thread of the block");

    ListIndex lists;
    lists.index(launch.top);
    Plan plan;
    plan.consumer_threads = threads;
    plan.tid = k.thread_vars[0];
    plan.turns = !flag("tp.disable_pingpong");
    plan.defer = !flag("tp.disable_async_wgmma");
    plan.rotate = plan.defer && !flag("tp.disable_rotation");
    std::set<const BufferNode*> tiles;
    bool in_pipeline = false;
    for (auto& c : f.found) {
        std::string why = c.why;
        if (why.empty() && !tiles.insert(c.copy->dst.buffer.get()).second) why = "another copy fills the same tile";
        if (why.empty()) why = check_uses(c, launch.top, lists);
        if (!why.empty()) {
            if (c.pipeline)
                diags.report(DiagKind::FastPathNotTaken, c.copy->span, {"a TMA load by the producer", why, "the consumer threads copy this tile"});
            continue;
        }
        Channel ch;
        ch.copy = c.copy;
        ch.tile = c.copy->dst.buffer;
        ch.tma = c.tma;
        ch.depth = c.pipeline ? std::max(2, c.pipeline->num_stages) : 1;
        ch.ring = ch.tile;
        in_pipeline |= c.pipeline != nullptr;
        plan.channels.push_back(std::move(ch));
    }
    if (!in_pipeline) return refuse("no copy in the loop can be issued by a producer (the remarks at the copies say why)");
    // A loop whose last wgmma group keeps running into the next iteration holds one more slot
    // of each ring it reads: give those rings one slot beyond num_stages.
    std::map<const ForNode*, std::vector<Channel*>> by_loop;
    for (auto& c : f.found)
        for (auto& ch : plan.channels)
            if (ch.copy == c.copy && c.pipeline) by_loop[c.pipeline].push_back(&ch);
    for (auto& [loop, chans] : by_loop) {
        std::vector<Stmt> body;
        flatten_seq(loop->body, body);
        std::set<const BufferNode*> ring_tiles;
        for (auto* ch : chans) ring_tiles.insert(ch->tile.get());
        if (!plan.defer || !deferrable_tail(body, ring_tiles)) continue;
        plan.deferred.insert(loop);
        for (auto* ch : chans) ++ch->depth;
    }
    // Channels whose source is not a parameter tensor cannot have a tensor map.
    for (auto& ch : plan.channels) {
        bool param = false;
        for (const auto& p : func->params) param |= p.buffer == ch.copy->src.buffer;
        if (!param) return refuse("`" + ch.copy->src.buffer->name + "` is not a kernel parameter, so TMA has no tensor map of it");
    }
    // Ring depths: num_stages while the shared memory allows, down to two slots, then one.
    const int64_t limit = shared_limit(target, true);
    auto bytes_with = [&]() {
        std::map<const BufferNode*, int64_t> scale;
        int nbar = 0;
        for (const auto& ch : plan.channels) {
            scale[ch.tile.get()] = ch.depth;
            nbar += 2 * ch.depth;
        }
        return shared_bytes(*func, true, scale) + 16 + 8 * nbar;
    };
    for (int floor : {2, 1}) {
        while (bytes_with() > limit) {
            Channel* deepest = nullptr;
            for (auto& ch : plan.channels)
                if (ch.depth > floor && (!deepest || ch.depth * ch.tma.bytes > deepest->depth * deepest->tma.bytes)) deepest = &ch;
            if (!deepest) break;
            --deepest->depth;
        }
    }
    if (bytes_with() > limit) return refuse("the tiles and their barriers need " + std::to_string(bytes_with()) + " bytes of shared memory");
    // Two slots, one of them held by the running group, would leave the producer nothing to
    // load ahead: such a loop waits for its groups in place instead.
    for (auto& [loop, chans] : by_loop)
        for (auto* ch : chans)
            if (ch->depth < 3) plan.deferred.erase(loop);
    for (auto& ch : plan.channels) {
        if (ch.depth > 1 && (ch.tma.bytes % 1024) != 0 && ch.tma.swizzle_bytes > 0)
            return refuse("a ring slot of `" + ch.tile->name + "` is not a whole number of 1024-byte swizzle atoms");
        if (ch.depth > 1 && ch.tma.bytes % 128 != 0)
            return refuse("a ring slot of `" + ch.tile->name + "` is not a multiple of 128 bytes");
    }
    // Barriers and tensor maps.
    for (auto& ch : plan.channels) {
        ch.bar = plan.barriers;
        plan.barriers += 2 * ch.depth;
        std::string key = ops::tensor_map_key(ch.copy->src.buffer->name, ch.tma);
        auto m = std::find(plan.maps.begin(), plan.maps.end(), key);
        ch.map = static_cast<int>(m - plan.maps.begin());
        if (m == plan.maps.end()) plan.maps.push_back(key);
        plan.by_copy[ch.copy] = static_cast<size_t>(&ch - plan.channels.data());
    }
    register_split(plan);
    for (auto& ch : plan.channels) {
        if (ch.depth == 1) continue;
        std::vector<Expr> shape = {int_imm(ch.depth)};
        for (const auto& d : ch.tile->shape) shape.push_back(d);
        auto ring = std::make_shared<BufferNode>(ch.tile->name, ch.tile->dtype, shape, Scope::Shared, ch.tile->span);
        ring->layout = ch.tile->layout;
        ch.ring = ring;
    }

    // Rebuild the launch: one more warpgroup, the tiles' allocations as rings, the body split
    // into the two roles.
    struct Relaunch : IRMutator {
        const KernelLaunchNode* k;
        const Stmt* top;
        const Plan* plan;
        Buffer mutate_buffer(const Buffer& b) override {
            for (const auto& ch : plan->channels)
                if (ch.tile == b) return ch.ring;
            return b;
        }
        Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
            if (&n != k) return s;
            Stmt body = mutate(n.body);
            return std::make_shared<KernelLaunchNode>(n.grid, n.block_vars, std::vector<int64_t>{n.num_threads() + 128}, n.thread_vars,
                                                      body, n.span);
        }
        Stmt visit_stmt(const Stmt& s) override {
            if (s == *top) return rewrite_kernel_body(s, *plan, s->span);
            return IRMutator::visit_stmt(s);
        }
    } rl;
    rl.k = launch.node;
    rl.top = &launch.top;
    rl.plan = &plan;
    auto out = std::make_shared<PrimFunc>(*func);
    out->body = rl.mutate(func->body);
    std::string maps;
    for (const auto& m : plan.maps) maps += (maps.empty() ? "" : ";") + m;
    out->attrs["tp.ws"] = "producer-consumer";
    if (plan.defer) out->attrs["tp.async_wgmma"] = "1";  // rotation and deferred groups (see compile())
    out->attrs["tp.tma_maps"] = maps;
    return out;
}

bool is_warp_specialized(const PrimFunc& func) { return func.attrs.count("tp.ws") != 0; }

std::vector<TensorMapInfo> tensor_maps_of(const PrimFunc& func) {
    std::vector<TensorMapInfo> out;
    auto it = func.attrs.find("tp.tma_maps");
    if (it == func.attrs.end()) return out;
    // param:box:swizzle, box innermost first as AxBxC (ops::tensor_map_key)
    auto split = [](const std::string& text, char sep) {
        std::vector<std::string> parts;
        std::stringstream ss(text);
        std::string part;
        while (std::getline(ss, part, sep)) parts.push_back(part);
        return parts;
    };
    for (const auto& entry : split(it->second, ';')) {
        auto f = split(entry, ':');
        if (f.size() != 3) continue;
        TensorMapInfo t;
        t.param = f[0];
        for (const auto& d : split(f[1], 'x')) t.box.push_back(std::stoll(d));
        t.swizzle_bytes = std::stoi(f[2]);
        out.push_back(t);
    }
    return out;
}

}  // namespace tp::transform
