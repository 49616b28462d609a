// fold_epilogue_bias (see warp_specialize_internal.h): on a persistent sm_90a GEMM, the bias the
// epilogue adds to the accumulator becomes the accumulator's starting value.
//
// The tile's T.clear(C_local) and the epilogue's first step C_local[i, j] + bias[j] fold into
// one: C_local starts from the bias and the main loop accumulates onto it (the same sum,
// added in another order, as the tensor cores' own accumulation order is not the DSL's).
// The epilogue, which runs while the tensor cores idle, loses its add and the conversion of
// the bias; the fill costs what the clear did. The vector comes from a float32 copy in shared
// memory that both consumer warpgroups read: each tile loads the next tile's vector into
// registers as it starts (the main loop covers the latency) and parks it after its main loop,
// between two barriers of the consumer threads; the block's first tile gets its vector before
// the tile loop.
#include "ir/functor.h"
#include "transform/tile_lowering.h"
#include "transform/warp_specialize_internal.h"

namespace tp::transform::ws_gemm {

namespace {

constexpr int kConsumerBarrier = 3;  // 0 is __syncthreads, 1 + w each warpgroup's (store_tma)

// Counts the loads of `acc` and finds the Add whose operands are acc[loop var] and `vec`.
struct FindAdd : IRVisitor {
    const BufferNode* acc = nullptr;
    const VarNode* loop_var = nullptr;
    std::string key;  // the vector load's text
    int acc_loads = 0;
    const BinaryNode* add = nullptr;
    Expr acc_load;
    bool is_vec(const Expr& e) const {
        if (auto* c = e->as<CastNode>(); c && c->dtype == DataType::float32()) return print(c->value) == key;
        return e->dtype == DataType::float32() && print(e) == key;
    }
    bool is_acc(const Expr& e) const {
        auto* l = e->as<BufferLoadNode>();
        return l && l->buffer.get() == acc && l->indices.size() == 1 && l->indices[0].get() == loop_var;
    }
    void visit_Binary(const BinaryNode& n, const Expr& e) override {
        if (n.op == BinaryOp::Add && !add) {
            if (is_acc(n.a) && is_vec(n.b)) add = &n, acc_load = n.a;
            if (is_acc(n.b) && is_vec(n.a)) add = &n, acc_load = n.b;
        }
        IRVisitor::visit_Binary(n, e);
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        acc_loads += n.buffer.get() == acc;
        IRVisitor::visit_BufferLoad(n, e);
    }
};

struct Uses : IRVisitor {
    const BufferNode* buf = nullptr;
    bool found = false;
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        found |= n.buffer.get() == buf;
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        found |= n.buffer.get() == buf;
        IRVisitor::visit_BufferStore(n, s);
    }
};
bool uses(const Stmt& s, const BufferNode* b) {
    Uses u;
    u.buf = b;
    u.visit(s);
    return u.found;
}

// `for f in range(n): acc[f] = 0.0`, the lowered T.clear of the accumulator.
const ForNode* as_clear(const Stmt& s, const BufferNode* acc, int64_t n) {
    auto* f = s->as<ForNode>();
    auto* st = f ? f->body->as<BufferStoreNode>() : nullptr;
    if (!st || st->buffer.get() != acc || as_const_int(f->min) != 0 || as_const_int(f->extent) != n || st->indices.size() != 1 ||
        st->indices[0].get() != f->loop_var.get() || as_const_float(st->value) != 0.0)
        return nullptr;
    return f;
}

struct ReplaceNode : IRMutator {
    const ExprNode* from = nullptr;
    Expr to;
    Expr visit_Binary(const BinaryNode& n, const Expr& e) override { return &n == from ? to : IRMutator::visit_Binary(n, e); }
};

}  // namespace

std::optional<BiasFold> fold_epilogue_bias(const PrimFunc& func, const std::vector<Stmt>& tile, const std::vector<Stmt>& pre,
                                           const Buffer& acc, const std::vector<Stmt>& epilogue, const Expr& tid, int consumers,
                                           const TileWalk& walk, int64_t room) {
    if (epilogue.empty() || acc->shape.size() != 1 || !as_const_int(acc->shape[0])) return std::nullopt;
    const int64_t n = *as_const_int(acc->shape[0]), threads = 128 * consumers;
    auto* loop = epilogue.front()->as<ForNode>();
    if (!loop || as_const_int(loop->min) != 0 || as_const_int(loop->extent) != n) return std::nullopt;
    // The clear is the only use of the accumulator before the main loop.
    std::optional<size_t> clear;
    for (size_t i = 0; i < pre.size(); ++i) {
        if (as_clear(pre[i], acc.get(), n) && !clear) clear = i;
        else if (uses(pre[i], acc.get())) return std::nullopt;
    }
    if (!clear) return std::nullopt;

    for (const auto& v : find_epilogue_vectors(func, tile, epilogue, tid, consumers)) {
        // One copy serves both warpgroups: their slices must be the same.
        if (v.stmt != 0 || (consumers > 1 && v.delta != 0) || (v.size * 4 + 15) / 16 * 16 > room) continue;
        FindAdd fa;
        fa.acc = acc.get();
        fa.loop_var = loop->loop_var.get();
        fa.key = v.key;
        fa.visit(loop->body);
        if (!fa.add || fa.acc_loads != 1) continue;

        BiasFold out;
        Span sp = loop->span;
        out.bytes = (v.size * 4 + 15) / 16 * 16;
        out.vec = std::make_shared<BufferNode>("tp_ws_bias", DataType::float32(), std::vector<Expr>{int_imm(v.size)}, Scope::Shared, v.load->span);
        Stmt barrier = device_call("tp::named_barrier_sync", {int_imm(kConsumerBarrier), int_imm(threads)}, sp);
        auto* load = v.load->as<BufferLoadNode>();
        // Entry k of the vector for the tile whose position variables take `pos`. Registers hold
        // it as loaded; the conversion to float waits for the park, so that nothing at the
        // tile's start waits for the load.
        auto entry = [&](const Expr& k, bool partial, const std::map<const VarNode*, Expr>& pos) -> Expr {
            Expr at = make_binary(BinaryOp::Add, int_imm(v.lo0), partial ? make_binary(BinaryOp::Min, k, int_imm(v.size - 1)) : k);
            std::vector<Expr> idx;
            for (const auto& e : load->indices) idx.push_back(substitute(substitute(e, {{v.var.get(), at}}), pos));
            return std::make_shared<BufferLoadNode>(load->buffer, idx, load->span);
        };
        auto as_float = [&](const Expr& e) { return e->dtype == DataType::float32() ? e : make_cast(DataType::float32(), e, sp); };
        std::vector<Stmt> first_park, next_park{barrier};  // the next: after both warpgroups' fills
        std::vector<std::pair<Var, Expr>> first_loads;
        for (int64_t r = 0; r * threads < v.size; ++r) {
            Expr k = make_binary(BinaryOp::Add, tid, int_imm(threads * r));
            const bool partial = threads * r + threads - 1 >= v.size;
            auto store = [&](const Var& reg) {
                Stmt st = std::make_shared<BufferStoreNode>(out.vec, std::vector<Expr>{k}, as_float(reg), sp);
                return partial ? std::make_shared<IfThenElseNode>(make_binary(BinaryOp::LT, k, int_imm(v.size)), st, nullptr, sp) : st;
            };
            const std::string r_s = std::to_string(r);
            const DataType dt = load->dtype;
            Var first = std::make_shared<VarNode>("tp_ws_bias0_" + r_s, dt, VarKind::Plain, sp);
            Var next = std::make_shared<VarNode>("tp_ws_bias_next" + r_s, dt, VarKind::Plain, sp);
            first_loads.push_back({first, entry(k, partial, walk.first)});
            out.loads.push_back({next, make_select(walk.has_next, entry(k, partial, walk.next), make_cast(dt, float_imm(0.0), sp), sp)});
            first_park.push_back(store(first));
            next_park.push_back(store(next));
        }
        first_park.push_back(barrier);
        next_park.push_back(barrier);
        Stmt prologue = make_seq(first_park, sp);
        for (auto l = first_loads.rbegin(); l != first_loads.rend(); ++l)
            prologue = std::make_shared<LetStmtNode>(l->first, l->second, prologue, sp);
        out.prologue = prologue;
        out.park = make_seq(next_park, sp);

        // The clear becomes the fill: acc[f] = bias[var(f)] with the epilogue's layout variable.
        const ForNode& c = *pre[*clear]->as<ForNode>();
        Expr slot = make_binary(BinaryOp::Sub, substitute(v.var_def, {{loop->loop_var.get(), c.loop_var}}), int_imm(v.lo0));
        Stmt fill = std::make_shared<BufferStoreNode>(acc, std::vector<Expr>{c.loop_var},
                                                      std::make_shared<BufferLoadNode>(out.vec, std::vector<Expr>{slot}, sp), c.span);
        out.pre = pre;
        out.pre[*clear] = std::make_shared<ForNode>(c.loop_var, c.min, c.extent, c.for_kind, fill, c.span);
        ReplaceNode rep;
        rep.from = fa.add;
        rep.to = fa.acc_load;
        out.epilogue = epilogue;
        out.epilogue[0] = rep.mutate(epilogue[0]);
        return out;
    }
    return std::nullopt;
}

}  // namespace tp::transform::ws_gemm
