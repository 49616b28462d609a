// producer_consumer's consumer groups (see producer_consumer_internal.h, ir::WarpRolesNode).
// A kernel with one consumer warpgroup runs as many blocks as its tiles (a 64-row attention
// block, a 128 x 128 GEMM tile), and each block's producer loads the tiles its neighbours
// load too: the K and V tiles of every query block of a head, the A panel of every column
// tile. Two logical blocks along an axis whose loads do not depend on it become one launched
// block of two consumer warpgroups: each runs its own logical block exactly as written, with
// its own shared tiles, while the producer loads each shared tile once. The wider block is
// what the tensor cores need (two warpgroups taking turns), and L2 and the rings carry half
// the bytes. Results are those of the logical blocks, element for element.
#include <algorithm>

#include "transform/producer_consumer_internal.h"
#include "transform/tile_lowering.h"

namespace tp::transform::pc {

namespace {

constexpr int64_t kGroups = 2;

// Whether an expression reads a variable of `vars`.
struct Reads : IRVisitor {
    const std::set<const VarNode*>* vars = nullptr;
    bool found = false;
    void visit_Var(const VarNode& n, const Expr&) override { found |= vars->count(&n) > 0; }
};
bool reads(const Expr& e, const std::set<const VarNode*>& vars) {
    Reads r;
    r.vars = &vars;
    if (e) r.visit(e);
    return r.found;
}

// Let-bound variables whose value depends on `v` (transitively), and whether any control flow
// around a channel copy (the producer's skeleton) does.
struct Taint : IRVisitor {
    std::set<const VarNode*> vars;
    const Plan* plan = nullptr;
    int channels_below = 0;
    bool control = false;
    bool has_channel(const Stmt& s) {
        struct H : IRVisitor {
            const Plan* plan;
            bool found = false;
            void visit_CopyOp(const CopyOpNode& n, const Stmt&) override { found |= plan->by_copy.count(&n) > 0; }
        } h;
        h.plan = plan;
        h.visit(s);
        return h.found;
    }
    void visit_LetStmt(const LetStmtNode& n, const Stmt& s) override {
        if (reads(n.value, vars)) vars.insert(n.var.get());
        IRVisitor::visit_LetStmt(n, s);
    }
    void visit_For(const ForNode& n, const Stmt& s) override {
        if (has_channel(s)) control |= reads(n.min, vars) || reads(n.extent, vars);
        IRVisitor::visit_For(n, s);
    }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt& s) override {
        if (has_channel(s)) control |= reads(n.cond, vars);
        IRVisitor::visit_IfThenElse(n, s);
    }
};

// What the consumers' code does that a group cannot do on its own threads: device templates
// that read threadIdx themselves (mma.sync's ldmatrix offsets), the user's named barriers
// (their ids and counts are the block's), the grid's size, tile ops the lowering after the
// split would give block-wide scratch.
struct GroupBlocker : IRVisitor {
    std::string why;
    void visit_Call(const CallNode& n, const Expr& e) override {
        if (n.op == "named_barrier") why = "the kernel uses named barriers (T.sync_threads with an id)";
        if (n.op == "tp.num_programs") why = "the kernel reads the grid's size";
        if ((n.op == "tp.call" || n.op == "tp.call_async") && !n.args.empty())
            if (auto* name = n.args[0]->as<StringImmNode>();
                name && name->value.rfind("tp::gemm_", 0) == 0 && name->value.rfind("tp::gemm_wgmma", 0) != 0)
                why = "a T.gemm runs on mma.sync, whose fragments assume the block's own threads";
        IRVisitor::visit_Call(n, e);
    }
    void visit_ReduceOp(const ReduceOpNode&, const Stmt&) override { why = "a reduction is still a tile op"; }
    void visit_PrintOp(const PrintOpNode&, const Stmt&) override { why = "the kernel prints"; }
};

// Shared buffers allocated anywhere under the launch.
struct SharedAllocs : IRVisitor {
    std::vector<Buffer> out;
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        if (n.buffer->scope == Scope::Shared) out.push_back(n.buffer);
        IRVisitor::visit_Allocate(n, s);
    }
};

Buffer stack(const Buffer& b, int64_t count) {
    std::vector<Expr> shape = {int_imm(count)};
    shape.insert(shape.end(), b->shape.begin(), b->shape.end());
    auto s = std::make_shared<BufferNode>(b->name, b->dtype, shape, Scope::Shared, b->span);
    s->layout = b->layout;
    return s;
}

int64_t tile_bytes(const Buffer& b) {
    int64_t n = b->dtype.bytes();
    for (const auto& d : b->shape) n *= as_const_int(d).value_or(0);
    return n;
}

// The axis to group along: the one whose shared loads inside the loops carry the most bytes,
// with an extent that splits evenly and leaves the grid at least two waves deep. Sets each
// channel's per_group for it. Empty when one is found, else why not.
// `forced` (`tp.consumer_groups=2`) drops the grid-size condition (tests use small grids).
std::string choose_axis(Plan& plan, const KernelLaunchNode& k, const Stmt& top, const Target& target, bool forced) {
    const int64_t sms = target.sm_count > 0 ? target.sm_count : 132;
    int64_t total = 1;
    for (const auto& g : k.grid) total *= as_const_int(g).value_or(0);
    std::string why = "no block axis has an even constant extent, loads that do not depend on it, and a grid of " +
                      std::to_string(2 * sms * kGroups) + " blocks or more";
    int64_t best = 0;
    for (size_t a = 0; a < k.block_vars.size(); ++a) {
        auto extent = as_const_int(k.grid[a]);
        if (!extent || *extent % kGroups != 0 || (!forced && total / kGroups < 2 * sms)) continue;
        Taint t;
        t.plan = &plan;
        t.vars.insert(k.block_vars[a].get());
        t.visit(top);
        if (t.control) continue;
        int64_t shared = 0;
        bool through_binding = false;
        std::set<const VarNode*> direct = {k.block_vars[a].get()};
        for (const auto& ch : plan.channels) {
            bool dep = false;
            for (const auto& c : ch.tma.coords) {
                dep |= reads(c, t.vars);
                through_binding |= reads(c, t.vars) && !reads(c, direct);
            }
            if (!dep && ch.depth > 1) shared += ch.tma.bytes;
        }
        if (through_binding || shared <= best) continue;
        best = shared;
        plan.groups.axis = static_cast<int>(a);
        why.clear();
    }
    if (!why.empty()) return why;
    std::set<const VarNode*> axis_var = {k.block_vars[static_cast<size_t>(plan.groups.axis)].get()};
    for (auto& ch : plan.channels) {
        ch.per_group = false;
        for (const auto& c : ch.tma.coords) ch.per_group |= reads(c, axis_var);
    }
    return "";
}

// Each group's access to a group-owned buffer goes through its copy: the group index in front.
struct OwnedAccess : IRMutator {
    const Plan* plan = nullptr;
    const Buffer* find(const Buffer& b) const {
        auto it = plan->groups.stacked.find(b.get());
        return it == plan->groups.stacked.end() ? nullptr : &it->second;
    }
    std::vector<Expr> with_group(const std::vector<Expr>& idx) const {
        std::vector<Expr> out = {plan->groups.var};
        out.insert(out.end(), idx.begin(), idx.end());
        return out;
    }
    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        Expr base = IRMutator::visit_BufferLoad(n, e);
        const Buffer* s = find(n.buffer);
        if (!s) return base;
        return std::make_shared<BufferLoadNode>(*s, with_group(base->as<BufferLoadNode>()->indices), n.span);
    }
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt& st) override {
        Stmt base = IRMutator::visit_BufferStore(n, st);
        const Buffer* s = find(n.buffer);
        if (!s) return base;
        auto* b = base->as<BufferStoreNode>();
        return std::make_shared<BufferStoreNode>(*s, with_group(b->indices), b->value, n.span);
    }
    Stmt visit_Allocate(const AllocateNode& n, const Stmt& st) override {
        Stmt body = mutate(n.body);
        const Buffer* s = find(n.buffer);
        if (!s && body == n.body) return st;
        return std::make_shared<AllocateNode>(s ? *s : n.buffer, n.init, body, n.span);
    }
    bool mutate_region(const BufferRegion& in, BufferRegion& out) override {
        bool changed = IRMutator::mutate_region(in, out);
        const Buffer* s = find(in.buffer);
        if (!s) return changed;
        out.buffer = *s;
        out.region.insert(out.region.begin(), Range{plan->groups.var, int_imm(1)});
        return true;
    }
};

}  // namespace

bool channel_control_reads(const Plan& plan, const Stmt& top, const std::vector<Var>& vars) {
    Taint t;
    t.plan = &plan;
    for (const auto& v : vars) t.vars.insert(v.get());
    t.visit(top);
    return t.control;
}

bool bindings_read(const KernelLaunchNode& k, const std::vector<Var>& vars) {
    std::set<const VarNode*> set;
    for (const auto& v : vars) set.insert(v.get());
    for (Stmt s = k.body; s;) {
        if (auto* a = s->as<AllocateNode>()) {
            for (const auto& d : a->buffer->shape)
                if (reads(d, set)) return true;
            s = a->body;
        } else if (auto* l = s->as<LetStmtNode>()) {
            if (reads(l->value, set)) return true;
            s = l->body;
        } else {
            break;
        }
    }
    return false;
}

bool index_used_above(const KernelLaunchNode& k) {
    std::vector<Var> vars = k.block_vars;
    vars.insert(vars.end(), k.thread_vars.begin(), k.thread_vars.end());
    return bindings_read(k, vars);
}

std::optional<std::string> plan_groups(Plan& plan, const PrimFunc& func, const KernelLaunchNode& k, const Stmt& top, const Target& target) {
    if (plan.consumer_threads != 128) return std::nullopt;
    auto it = func.attrs.find("tp.consumer_groups");
    const std::string config = it == func.attrs.end() ? "" : it->second;
    if (config == "1") return std::nullopt;
    if (k.thread_vars.size() != 1 || k.threads.size() != 1) return "the block is not one-dimensional";
    if (index_used_above(k)) return "a binding before the kernel's statements uses the block or thread index";
    GroupBlocker blocker;
    blocker.visit(top);
    if (!blocker.why.empty()) return blocker.why;
    if (std::string why = choose_axis(plan, k, top, target, config == "2"); !why.empty()) return why;
    SharedAllocs allocs;
    allocs.visit(k.body);
    Groups& g = plan.groups;
    g.count = kGroups;
    g.threads = plan.consumer_threads;
    g.block_var = k.block_vars[static_cast<size_t>(g.axis)];
    g.var = std::make_shared<VarNode>("tp_group", DataType::int32(), VarKind::ThreadIdx, k.span);
    for (const auto& b : allocs.out) {
        const Channel* ch = nullptr;
        for (const auto& c : plan.channels)
            if (c.tile == b) ch = &c;
        if (ch && !ch->per_group) continue;  // one tile the groups share
        const int64_t bytes = tile_bytes(b);
        if (bytes == 0) return "`" + b->name + "` has a size only known at run time";
        if (bytes % (b->layout.empty() ? 128 : 1024) != 0)
            return "a copy of `" + b->name + "` per group would not start on a " + (b->layout.empty() ? "128" : "1024") + "-byte boundary";
        if (!ch || ch->depth == 1) g.stacked[b.get()] = stack(b, g.count);
    }
    plan.consumer_threads *= g.count;
    return "";
}

std::map<const BufferNode*, int64_t> ring_and_group_scale(const Plan& plan) {
    std::map<const BufferNode*, int64_t> scale;
    for (const auto& [b, _] : plan.groups.stacked) scale[b] = plan.groups.count;
    for (const auto& ch : plan.channels) scale[ch.tile.get()] = ch.depth * (ch.per_group ? plan.groups.count : 1);
    return scale;
}

Stmt group_owned_accesses(const Stmt& consumer, const Plan& plan) {
    if (!plan.groups.on()) return consumer;
    OwnedAccess m;
    m.plan = &plan;
    return m.mutate(consumer);
}

}  // namespace tp::transform::pc
