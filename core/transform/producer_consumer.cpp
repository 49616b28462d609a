// producer_consumer (see producer_consumer.h): which copies become channels (from the scan of
// producer_consumer_scan.cpp), whether the kernel can take the split (block shape, shared
// memory), ring depths, barriers and tensor maps, and the remarks when it cannot. The rewrite
// itself is producer_consumer_rewrite.cpp, the loop rotation producer_consumer_rotate.cpp.
#include "transform/producer_consumer.h"

#include <algorithm>
#include <sstream>

#include "transform/producer_consumer_internal.h"
#include "transform/shared_budget.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;
using namespace pc;


namespace {

// setmaxnreg budgets: the producer keeps 24 registers (it only computes coordinates) and the
// consumers take what it gives back. setmaxnreg moves registers only within what the block was
// launched with: ptxas gives a kernel with setmaxnreg the most __launch_bounds__(T, B) allows,
// a multiple of 8 with B * T * R <= 64K, so an increase beyond that pool would wait forever (four
// consumer warpgroups: 640 threads of 96 registers can grow the consumers to 112, not 120).
// One consumer warpgroup whose block fits twice in an SM's shared memory is launched two to an
// SM (B = 2: 128 registers each, the consumers growing to 232): one warpgroup issuing wgmma
// cannot keep the tensor cores busy through its own waits and epilogue, two blocks' can, as
// the two consumer warpgroups of a ping-pong schedule do. `tp.blocks_per_sm=1` keeps one (and
// compile() falls back to it when ptxas spills at 232). Otherwise, with one consumer warpgroup
// the 256-thread block already allows 255, so nothing moves.
void register_split(Plan& plan, const Target& target, int64_t blocks_config) {
    const int64_t block = plan.consumer_threads + 128;
    const int64_t per_block_smem = plan.shared_bytes + 1024 + 1024;  // alignment slack, the SM's reserve
    if (plan.consumer_threads == 128 && blocks_config != 1 && 2 * per_block_smem <= target.smem_per_sm) plan.blocks_per_sm = 2;
    if (plan.consumer_threads <= 128 && plan.blocks_per_sm == 1) return;
    const int64_t launched = std::min<int64_t>(255, 65536 / (block * plan.blocks_per_sm)) / 8 * 8;
    plan.producer_regs = 24;
    int64_t c = (launched * block - 128 * plan.producer_regs) / plan.consumer_threads / 8 * 8;
    plan.consumer_regs = static_cast<int>(std::min<int64_t>(240, c));
    if (plan.consumer_regs <= launched) plan.producer_regs = plan.consumer_regs = 0;  // nothing to gain
}

// Whether statements other than wgmma issues (whose operand reads are in the async proxy, like
// TMA's writes) and the channels' own copies reference `tile`: loads, copies into registers.
bool read_by_generic_proxy(const Stmt& top, const BufferNode* tile, const std::set<const CopyOpNode*>& channel_copies) {
    struct Refs : IRVisitor {
        const BufferNode* tile = nullptr;
        const std::set<const CopyOpNode*>* skip = nullptr;
        int in_async = 0;
        bool found = false;
        void visit_buffer(const Buffer& b) override {
            found |= b.get() == tile && in_async == 0;
            IRVisitor::visit_buffer(b);
        }
        void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
            found |= n.buffer.get() == tile && in_async == 0;
            IRVisitor::visit_BufferLoad(n, e);
        }
        void visit_Call(const CallNode& n, const Expr& e) override {
            const bool async = n.op == "tp.async_call" || n.op == "tp.async_wait";
            in_async += async;
            IRVisitor::visit_Call(n, e);
            in_async -= async;
        }
        void visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
            if (!skip->count(&n)) IRVisitor::visit_CopyOp(n, s);
        }
    } r;
    r.tile = tile;
    r.skip = &channel_copies;
    r.visit(top);
    return r.found;
}

// The channels: candidates the producer can issue and the consumers' uses allow; a remark at
// each copy inside a T.Pipelined loop that cannot be one. Loops with channels are `loops`.
void collect_channels(Plan& plan, const Scan& scan, const Stmt& top, DiagnosticEngine& diags,
                      std::map<const ForNode*, std::vector<size_t>>& loops) {
    std::set<const BufferNode*> tiles;
    for (const auto& c : scan.copies) {
        std::string why = c.why;
        if (why.empty() && !tiles.insert(c.copy->dst.buffer.get()).second) why = "another copy fills the same tile";
        if (why.empty()) why = check_uses(c, top);
        if (!why.empty()) {
            if (c.pipeline)
                diags.report(DiagKind::FastPathNotTaken, c.copy->span, {"a TMA load by the producer", why, "the consumer threads copy this tile"});
            continue;
        }
        Channel ch;
        ch.copy = c.copy;
        ch.tile = ch.ring = c.copy->dst.buffer;
        ch.tma = c.tma;
        ch.depth = c.pipeline ? std::max(2, c.pipeline->num_stages) : 1;
        ch.leader = plan.channels.size();
        if (c.pipeline) loops[c.pipeline].push_back(plan.channels.size());
        plan.channels.push_back(std::move(ch));
    }
    std::set<const CopyOpNode*> copies;
    for (const auto& ch : plan.channels) copies.insert(ch.copy);
    for (auto& ch : plan.channels) ch.generic_reads = read_by_generic_proxy(top, ch.tile.get(), copies);
}

// Each channel group leader's bytes per slot: its members' loads, a per-group tile once per
// consumer group.
void count_group_bytes(Plan& plan) {
    for (auto& ch : plan.channels) ch.group_bytes = 0;
    for (auto& ch : plan.channels) plan.channels[ch.leader].group_bytes += ch.tma.bytes * (ch.per_group ? plan.groups.count : 1);
}

// Channel groups: in each loop body, a run of adjacent channel copies whose tiles the same
// statement reads first (a GEMM's A and B) is consumed as one: a single wait, release and
// producer acquire per slot instead of one per copy. Copies read at different points (an
// attention loop's K and V) keep their own barriers, so the first can be used while the
// second is still in flight.
void group_channels(Plan& plan, const std::map<const ForNode*, std::vector<size_t>>& loops) {
    for (const auto& entry : loops) {
        // Not a structured binding: clang 14 (the fuzz build's compiler) cannot capture one.
        const ForNode* loop = entry.first;
        const std::vector<size_t>& chans = entry.second;
        std::vector<Stmt> body;
        flatten_seq(loop->body, body);
        auto channel_at = [&](const Stmt& s) -> Channel* {
            auto* c = s->as<CopyOpNode>();
            for (size_t i : chans)
                if (plan.channels[i].copy == c) return &plan.channels[i];
            return nullptr;
        };
        auto first_reader = [&](size_t from, const Channel& ch) {
            for (size_t j = from + 1; j < body.size(); ++j)
                if (references(body[j], ch.tile.get()) > 0) return j;
            return body.size();
        };
        Channel* lead = nullptr;
        size_t lead_reader = 0;
        for (size_t i = 0; i < body.size(); ++i) {
            Channel* ch = channel_at(body[i]);
            if (!ch) {
                lead = nullptr;
                continue;
            }
            const size_t reader = first_reader(i, *ch);
            if (lead && reader == lead_reader && reader < body.size() && ch->depth == lead->depth) {
                ch->leader = lead->leader;
                for (auto& m : plan.channels)
                    if (m.leader == ch->leader) m.last = false;
                ch->last = true;
                continue;
            }
            lead = ch;
            lead_reader = reader;
        }
    }
    count_group_bytes(plan);
}

// Ring depths: num_stages (one more in a loop whose last wgmma group runs on into the next
// iteration: it holds a slot), lowered while the shared memory does not fit, down to two slots,
// then one. Empty, or why the kernel cannot take the split.
std::string size_rings(Plan& plan, const PrimFunc& func, const Target& target, const std::map<const ForNode*, std::vector<size_t>>& loops) {
    for (const auto& entry : loops) {
        // Not a structured binding: clang 14 (the fuzz build's compiler) cannot capture one.
        const ForNode* loop = entry.first;
        const std::vector<size_t>& chans = entry.second;
        std::vector<Stmt> body;
        flatten_seq(loop->body, body);
        std::set<const BufferNode*> ring_tiles;
        for (size_t i : chans) ring_tiles.insert(plan.channels[i].tile.get());
        if (!plan.defer || !deferrable_tail(body, ring_tiles)) continue;
        plan.deferred.insert(loop);
        for (size_t i : chans) ++plan.channels[i].depth;
    }
    const int64_t limit = shared_limit(target, true);
    auto bytes_with = [&]() {
        int nbar = 0;
        for (size_t i = 0; i < plan.channels.size(); ++i)
            if (plan.channels[i].leader == i) nbar += 2 * plan.channels[i].depth;
        return shared_bytes(func, true, ring_and_group_scale(plan)) + 16 + 8 * nbar;
    };
    for (int floor : {2, 1}) {
        while (bytes_with() > limit) {
            // A group's members keep one depth: the group with the most bytes gives a slot.
            Channel* deepest = nullptr;
            for (size_t i = 0; i < plan.channels.size(); ++i) {
                Channel& ch = plan.channels[i];
                if (ch.leader == i && ch.depth > floor && (!deepest || ch.depth * ch.group_bytes > deepest->depth * deepest->group_bytes))
                    deepest = &ch;
            }
            if (!deepest) break;
            const size_t lead = static_cast<size_t>(deepest - plan.channels.data());
            for (auto& ch : plan.channels)
                if (ch.leader == lead) --ch.depth;
        }
    }
    if (bytes_with() > limit) return "the tiles and their barriers need " + std::to_string(bytes_with()) + " bytes of shared memory";
    plan.shared_bytes = bytes_with();
    // Two slots, one of them held by the running group, would leave the producer nothing to
    // load ahead: such a loop waits for its groups in place instead.
    for (const auto& [loop, chans] : loops)
        for (size_t i : chans)
            if (plan.channels[i].depth < 3) plan.deferred.erase(loop);
    for (const auto& ch : plan.channels) {
        if (ch.depth > 1 && (ch.tma.bytes % 1024) != 0 && ch.tma.swizzle_bytes > 0)
            return "a ring slot of `" + ch.tile->name + "` is not a whole number of 1024-byte swizzle atoms";
        if (ch.depth > 1 && ch.tma.bytes % 128 != 0) return "a ring slot of `" + ch.tile->name + "` is not a multiple of 128 bytes";
    }
    return "";
}

// Consumer groups as planned (`why` empty) or refused: the grouped plan's rings twice as deep
// as without groups where the single block would have run two to an SM, so that an SM keeps
// as many tiles in flight as the two blocks did, and no shallower than two slots where the
// single block had two or more: two warpgroups taking turns on a two-slot ring beat one on a
// deeper ring (example_gqa_fwd_bshd 64/128, 3 stages: 0.69x SDPA alone, 0.96x grouped with
// 2). Falls back to `single` with a remark at the kernel when they cannot be had.
void settle_groups(Plan& plan, const Plan& single, std::string why, const PrimFunc& func, const KernelLaunchNode& k, const Target& target,
                   const std::map<const ForNode*, std::vector<size_t>>& loops, int64_t blocks_config, DiagnosticEngine& diags) {
    if (why.empty()) {
        Plan two = single;
        register_split(two, target, blocks_config);
        if (two.blocks_per_sm == 2)
            for (auto& ch : plan.channels)
                if (ch.depth > 1) ch.depth *= 2;
        bool kept = size_rings(plan, func, target, loops).empty();
        for (size_t i = 0; kept && i < plan.channels.size(); ++i) kept = plan.channels[i].depth >= std::min(2, single.channels[i].depth);
        if (!kept) why = "the groups' tiles and the rings at their depths need more than the block's shared memory";
    }
    if (!why.empty()) {
        diags.report(DiagKind::FastPathNotTaken, k.span,
                     {"consumer groups (two blocks of one consumer warpgroup sharing one producer's loads)", why, "each block loads its own tiles"});
        plan = single;
        return;
    }
    std::string shared_tiles;
    for (const auto& ch : plan.channels)
        if (!ch.per_group) shared_tiles += (shared_tiles.empty() ? "`" : ", `") + ch.tile->name + "`";
    diags.report(DiagKind::FastPathTaken, k.span,
                 {"consumer groups", "blocks " + std::to_string(plan.groups.count) + " at a time along block axis " +
                                         std::to_string(plan.groups.axis) + " run as one, sharing the loads of " + shared_tiles});
    count_group_bytes(plan);  // per-group tiles now arrive once per group
}

// Barrier indices, tensor maps (one per tensor and box) and ring buffers.
void lay_out_channels(Plan& plan) {
    for (size_t i = 0; i < plan.channels.size(); ++i) {
        Channel& ch = plan.channels[i];
        if (ch.leader == i) {
            ch.bar = plan.barriers;
            plan.barriers += 2 * ch.depth;
        } else {
            ch.bar = plan.channels[ch.leader].bar;
        }
        std::string key = ops::tensor_map_key(ch.copy->src.buffer->name, ch.tma);
        auto m = std::find(plan.maps.begin(), plan.maps.end(), key);
        ch.map = static_cast<int>(m - plan.maps.begin());
        if (m == plan.maps.end()) plan.maps.push_back(key);
        if (auto st = plan.groups.stacked.find(ch.tile.get()); st != plan.groups.stacked.end()) ch.ring = st->second;
        if (ch.depth == 1) continue;
        std::vector<Expr> shape = {int_imm(ch.depth)};
        if (ch.per_group) shape.push_back(int_imm(plan.groups.count));
        for (const auto& d : ch.tile->shape) shape.push_back(d);
        auto ring = std::make_shared<BufferNode>(ch.tile->name, ch.tile->dtype, shape, Scope::Shared, ch.tile->span);
        ring->layout = ch.tile->layout;
        ch.ring = ring;
    }
}

// The launch rebuilt: one more warpgroup, the tiles' allocations as rings, the body split into
// the two roles.
PrimFuncPtr relaunch(const PrimFuncPtr& func, const Launch& launch, const Plan& plan, DiagnosticEngine& diags) {
    struct Relaunch : IRMutator {
        const KernelLaunchNode* k;
        const Stmt* top;
        const Plan* plan;
        DiagnosticEngine* diags;
        Buffer mutate_buffer(const Buffer& b) override {
            for (const auto& ch : plan->channels)
                if (ch.tile == b) return ch.ring;
            if (auto st = plan->groups.stacked.find(b.get()); st != plan->groups.stacked.end()) return st->second;
            return b;
        }
        Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
            if (&n != k) return s;
            Stmt body = mutate(n.body);
            std::vector<Expr> grid = n.grid;
            std::vector<Var> block_vars = n.block_vars;
            const auto& g = plan->groups;
            if (g.on()) grid[g.axis] = int_imm(*as_const_int(grid[g.axis]) / g.count);
            if (plan->persistent.on) {  // one block per work unit, capped at the SM count at launch
                grid = {persistent_units(plan->persistent)};
                block_vars = {plan->persistent.pid};
            }
            return std::make_shared<KernelLaunchNode>(grid, block_vars, std::vector<int64_t>{plan->consumer_threads + 128}, n.thread_vars, body,
                                                      n.span);
        }
        Stmt visit_stmt(const Stmt& s) override {
            if (s == *top) return rewrite_kernel_body(s, *plan, s->span, *diags);
            return IRMutator::visit_stmt(s);
        }
    } rl;
    rl.k = launch.node;
    rl.top = &launch.top;
    rl.plan = &plan;
    rl.diags = &diags;
    auto out = std::make_shared<PrimFunc>(*func);
    out->body = rl.mutate(func->body);
    out->attrs["tp.ws"] = "producer-consumer";
    if (plan.defer) out->attrs["tp.async_wgmma"] = "1";  // rotation and deferred groups (see compile())
    set_tensor_maps(*out, plan.maps);
    if (plan.persistent.on) out->attrs["tp.persistent_grid"] = "1";  // the launcher caps the grid (not the pass config)
    if (plan.blocks_per_sm > 1) out->attrs["tp.ws_blocks_per_sm"] = std::to_string(plan.blocks_per_sm);
    return out;
}

}  // namespace

// A wgmma issue fences its shared operands' generic-proxy writes (tp.proxy_fence) unless every
// shared tile it reads is a channel's: those only the producer's TMA writes, through the async
// proxy the tensor cores read by, and the full barrier orders them. The fence is a
// fence.proxy.async per issue in the consumers' hottest loop.
struct ProxyFences : IRMutator {
    std::set<const BufferNode*> async_tiles;
    Expr visit_Call(const CallNode& n, const Expr& e) override {
        if (n.op != "tp.async_call") return IRMutator::visit_Call(n, e);
        bool all_async = true;
        for (const auto& a : n.args)
            if (auto* l = addressed(a); l && l->buffer->scope == Scope::Shared) all_async &= async_tiles.count(l->buffer.get()) > 0;
        if (!all_async) return e;
        std::vector<Expr> args = n.args;
        bool changed = false;
        for (auto& a : args)
            if (auto* c = a->as<CallNode>(); c && c->op == "tp.proxy_fence") {
                a = make_call("tp.proxy_fence", {int_imm(0)}, c->dtype, c->span);
                changed = true;
            }
        return changed ? make_call(n.op, args, n.dtype, n.span) : e;
    }
};

PrimFuncPtr drop_proxy_fences(const PrimFuncPtr& func, const Plan& plan) {
    ProxyFences m;
    for (const auto& ch : plan.channels) m.async_tiles.insert({ch.tile.get(), ch.ring.get()});
    return mutate_func(func, m);
}

PrimFuncPtr producer_consumer(const PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags) {
    if (!func || !target.has_wgmma() || func->attrs.count("tp.ws")) return func;
    auto flag = [&](const char* k) {
        auto it = func->attrs.find(k);
        return it != func->attrs.end() && it->second == "true";
    };
    Launch launch = find_launch(func->body);
    if (!launch.node || launch.node->thread_vars.empty()) return func;
    Scan scan = scan_copies(*func, launch.top, target);
    if (scan.pipelines.empty() || flag("tl.disable_warp_specialized")) return func;
    auto refuse = [&](const std::string& why) {
        diags.report(DiagKind::FastPathNotTaken, scan.pipelines.front()->span,
                     {"warp specialization (a TMA producer warpgroup and consumer warpgroups)", why, "the loop keeps cp.async stages"});
        return func;
    };
    if (flag("tl.disable_tma_lower")) return refuse("`tl.disable_tma_lower` is set");
    // Its own arrivals count the user's threads; a producer warpgroup would change who runs what.
    if (flag("tp.user_barriers")) return refuse("the kernel synchronises its threads with its own mbarriers (T.alloc_barrier)");
    const KernelLaunchNode& k = *launch.node;
    const int64_t threads = k.num_threads();
    if (k.threads.size() > 1 && threads != k.threads[0]) return refuse("the block is not one-dimensional");
    if (threads % 128 != 0) return refuse("the consumers must be whole warpgroups; the block has " + std::to_string(threads) + " threads");
    if (threads + 128 > 1024) return refuse("a producer warpgroup beside " + std::to_string(threads) + " threads exceeds 1024 threads");
    if (has_tile_print(launch.top)) return refuse("T.print of a tile needs every thread of the block");

    Plan plan;
    // Maps an earlier pass made (TMA-store epilogues) keep their indices; the loads' follow.
    plan.maps = tensor_map_keys(*func);
    plan.consumer_threads = threads;
    plan.tid = k.thread_vars[0];
    plan.turns = !flag("tp.disable_pingpong");
    plan.defer = !flag("tp.disable_async_wgmma");
    plan.rotate = plan.defer && !flag("tp.disable_rotation");
    std::map<const ForNode*, std::vector<size_t>> loops;
    collect_channels(plan, scan, launch.top, diags, loops);
    group_channels(plan, loops);
    // Indexed now: the plans below (consumer groups, persistence) look channels up by copy.
    for (size_t i = 0; i < plan.channels.size(); ++i) plan.by_copy[plan.channels[i].copy] = i;
    if (loops.empty()) return refuse("no copy in the loop can be issued by a producer (the remarks at the copies say why)");
    // Channels whose source is not a parameter tensor cannot have a tensor map.
    for (const auto& ch : plan.channels) {
        bool param = false;
        for (const auto& p : func->params) param |= p.buffer == ch.copy->src.buffer;
        if (!param) return refuse("`" + ch.copy->src.buffer->name + "` is not a kernel parameter, so TMA has no tensor map of it");
    }
    int64_t blocks_config = 0;
    if (auto it = func->attrs.find("tp.blocks_per_sm"); it != func->attrs.end()) blocks_config = it->second == "1" ? 1 : 0;
    Plan single = plan;  // without consumer groups (a persistent grid walks blocks of its own)
    std::optional<std::string> grouped = persistent_asked(*func) ? std::nullopt : plan_groups(plan, *func, k, launch.top, target);
    if (std::string why = size_rings(single, *func, target, loops); !why.empty()) return refuse(why);
    if (!grouped)
        plan = single;
    else
        settle_groups(plan, single, *grouped, *func, k, target, loops, blocks_config, diags);
    lay_out_channels(plan);
    register_split(plan, target, blocks_config);
    // One consumer warpgroup whose shared memory does not fit twice: say why it runs alone.
    if (plan.consumer_threads == 128 && plan.blocks_per_sm == 1 && blocks_config != 1)
        diags.report(DiagKind::FastPathNotTaken, scan.pipelines.front()->span,
                     {"two blocks per SM", "the block's " + std::to_string(plan.shared_bytes) + " bytes of shared memory do not fit twice in the SM's " +
                                               std::to_string(target.smem_per_sm),
                      "one warpgroup issues every wgmma (fewer stages or smaller tiles would let two blocks share the SM)"});
    choose_persistent(plan, *func, k, launch.top, target, diags);
    return drop_proxy_fences(relaunch(func, launch, plan, diags), plan);
}

bool is_warp_specialized(const PrimFunc& func) { return func.attrs.count("tp.ws") != 0; }

int ws_blocks_per_sm(const PrimFunc& func) {
    auto it = func.attrs.find("tp.ws_blocks_per_sm");
    return it == func.attrs.end() ? 1 : std::stoi(it->second);
}

std::vector<std::string> tensor_map_keys(const PrimFunc& func) {
    std::vector<std::string> keys;
    for (const auto& m : tensor_maps_of(func)) keys.push_back(ops::tensor_map_key(m.param, m.box, m.swizzle_bytes));
    return keys;
}

void set_tensor_maps(PrimFunc& func, const std::vector<std::string>& keys) {
    std::string maps;
    for (const auto& k : keys) maps += (maps.empty() ? "" : ";") + k;
    func.attrs["tp.tma_maps"] = maps;
}

void add_tma_store_params(PrimFunc& func, const std::vector<std::string>& names) {
    std::string& stored = func.attrs["tp.tma_store_params"];
    for (const auto& n : names) stored += (stored.empty() ? "" : ",") + n;
}

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
