// plan_index_inputs: follows the values loaded from integer input tensors through lets, local
// variables and copies to the index expressions of other buffers, and sizes each table by the
// dimensions its values index. A kernel such as a varlen attention reads
// `Q[cu_seqlens[b] + i]`: its offsets must lie in [0, Q.shape[0]] and rise, which random
// integers in [-4, 4] do not, so the run would stop at an out-of-bounds access that the file's
// own inputs never make. See index_inputs.h.
#include "interp/index_inputs.h"

#include <algorithm>
#include <optional>
#include <set>

#include "ir/functor.h"

namespace tp::interp {

namespace {

// The tables a value depends on, each with the constant it is multiplied by on the way
// (`block_id * block_size`): its values may only reach extent / scale. kSubtracted marks a table
// whose values are subtracted (`m - padded_offsets[g] + offsets[g]`): the tables of such a value
// are related in a way in-range values alone do not keep, so that index says nothing about them.
using Deps = std::map<size_t, int64_t>;
constexpr int64_t kSubtracted = -1;

void merge(Deps& into, const Deps& from, int64_t factor = 1) {
    for (const auto& [t, scale] : from) {
        int64_t& to = into[t];
        to = (to == kSubtracted || scale == kSubtracted || factor == kSubtracted) ? kSubtracted : std::max(to, scale * factor);
    }
}

// One index expression that depends on a table's values: its buffer dimension's extent and the
// constant it adds (`x + 1` may only reach extent - 1).
struct Use {
    Deps deps;
    int64_t extent = 0;
    int64_t added = 0;
    std::string where;  // "`Q` dim 0"
};

class Follow : public ir::IRVisitor {
public:
    Follow(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes) : f_(f), shapes_(shapes) {
        for (size_t i = 0; i < f.params.size(); ++i) {
            const auto& p = f.params[i];
            if (p.buffer) params_[p.buffer.get()] = i;
            if (p.buffer && !p.is_output && p.buffer->dtype.is_int()) tables_[p.buffer.get()] = i;
        }
    }

    std::map<const ir::BufferNode*, size_t> tables_;
    std::map<size_t, std::set<std::string>> loads_at_;         // table -> printed index of each 1-D load
    std::map<size_t, std::set<std::string>> loads_at_minus1_;  // table -> x of each 1-D load at `x + 1`
    std::vector<Use> uses_;
    std::set<const ir::VarNode*> grid_vars_;
    // Tables read directly on one side of an ordering comparison, with the tables the other
    // side's value depends on (`i_s * block_N + j >= cache_seqlens[b]`, i_s from block_indices).
    std::vector<std::pair<size_t, Deps>> compared_;

    // Runs the walk until the taint of variables and local buffers stops growing (a local set
    // in a loop is read before the store that taints it, in program order).
    void run() {
        for (int pass = 0; pass < 4; ++pass) {
            size_t before = taint_size();
            uses_.clear();
            compared_.clear();
            visit(f_.body);
            if (taint_size() == before) break;
        }
    }

protected:
    Deps deps(const ir::Expr& e) const {
        Deps out;
        collect(e, out, 1);
        return out;
    }

    void collect(const ir::Expr& e, Deps& out, int64_t scale) const {
        if (!e) return;
        if (auto* v = e->as<ir::VarNode>()) {
            auto it = var_taint_.find(v);
            if (it != var_taint_.end()) merge(out, it->second, scale);
        } else if (auto* l = e->as<ir::BufferLoadNode>()) {
            // The loaded value comes from the buffer, not from its index.
            if (auto t = tables_.find(l->buffer.get()); t != tables_.end()) merge(out, {{t->second, 1}}, scale);
            if (auto b = buf_taint_.find(l->buffer.get()); b != buf_taint_.end()) merge(out, b->second, scale);
        } else if (auto* b = e->as<ir::BinaryNode>()) {
            if (ir::is_comparison(b->op) || b->op == ir::BinaryOp::And || b->op == ir::BinaryOp::Or) return;  // a truth value
            if (b->op == ir::BinaryOp::Sub) {
                // `t[i + 1] - t[i]`: a segment's length, within the range of the table's values
                // like either end (a varlen kernel's `q_end - q_start` bounding its loop).
                Deps da, db;
                collect(b->a, da, 1);
                collect(b->b, db, 1);
                if (da.size() == 1 && da == db && da.begin()->second == 1) return merge(out, da, scale);
                collect(b->a, out, scale);
                return collect(b->b, out, kSubtracted);
            }
            if (b->op == ir::BinaryOp::Mul && scale != kSubtracted) {
                auto ca = ir::as_const_int(b->a), cb = ir::as_const_int(b->b);
                if (cb && *cb > 0) return collect(b->a, out, scale * *cb);
                if (ca && *ca > 0) return collect(b->b, out, scale * *ca);
            }
            collect(b->a, out, scale);
            collect(b->b, out, scale);
        } else if (auto* u = e->as<ir::UnaryNode>()) {
            collect(u->a, out, scale);
        } else if (auto* c = e->as<ir::CastNode>()) {
            collect(c->value, out, scale);
        } else if (auto* s = e->as<ir::SelectNode>()) {
            collect(s->true_value, out, scale);
            collect(s->false_value, out, scale);
        } else if (auto* call = e->as<ir::CallNode>()) {
            for (const auto& a : call->args) collect(a, out, scale);
        }
    }

    int64_t extent_of(const ir::Buffer& b, size_t dim) const {
        if (auto p = params_.find(b.get()); p != params_.end()) return dim < shapes_[p->second].size() ? shapes_[p->second][dim] : -1;
        auto c = dim < b->shape.size() ? ir::as_const_int(b->shape[dim]) : std::nullopt;
        return c ? *c : -1;
    }

    void record(const ir::Buffer& b, size_t dim, ir::Expr index) {
        int64_t extent = extent_of(b, dim);
        if (extent <= 0) return;
        // A view's flat index split back into dims (`flat // 128 % 16`): a remainder is in range
        // whatever the table holds, and a quotient by c may reach c times the extent.
        while (auto* bin = index->as<ir::BinaryNode>()) {
            auto c = ir::as_const_int(bin->b);
            if (!c || *c <= 0) break;
            if (bin->op == ir::BinaryOp::Mod || bin->op == ir::BinaryOp::FloorMod) return;
            if (bin->op != ir::BinaryOp::FloorDiv && bin->op != ir::BinaryOp::Div) break;
            extent *= *c;
            index = bin->a;
        }
        Deps d = deps(index);
        if (d.empty() || std::any_of(d.begin(), d.end(), [](const auto& kv) { return kv.second == kSubtracted; })) return;
        Use u{std::move(d), extent, 0, "`" + b->name + "` dim " + std::to_string(dim)};
        if (auto* add = index->as<ir::BinaryNode>(); add && add->op == ir::BinaryOp::Add)
            if (auto c = ir::as_const_int(add->b); c && *c > 0) u.added = *c;
        uses_.push_back(std::move(u));
    }

    // The table an expression loads as it is (through casts), if any.
    std::optional<size_t> table_read(ir::Expr e) const {
        while (auto* c = e->as<ir::CastNode>()) e = c->value;
        auto* l = e->as<ir::BufferLoadNode>();
        if (!l) return std::nullopt;
        auto t = tables_.find(l->buffer.get());
        if (t == tables_.end()) return std::nullopt;
        return t->second;
    }

    void note_table_load(const ir::Buffer& b, const std::vector<ir::Expr>& indices) {
        auto t = tables_.find(b.get());
        if (t == tables_.end() || indices.size() != 1) return;
        loads_at_[t->second].insert(ir::print(indices[0]));
        if (auto* add = indices[0]->as<ir::BinaryNode>(); add && add->op == ir::BinaryOp::Add)
            if (auto c = ir::as_const_int(add->b); c && *c == 1) loads_at_minus1_[t->second].insert(ir::print(add->a));
    }

    void taint_buffer(const ir::Buffer& b, const Deps& d) {
        if (d.empty() || params_.count(b.get())) return;
        merge(buf_taint_[b.get()], d);
    }

    void visit_region_uses(const ir::BufferRegion& r) {
        for (size_t i = 0; i < r.region.size(); ++i) record(r.buffer, i, r.region[i].min);
    }

    void visit_BufferLoad(const ir::BufferLoadNode& n, const ir::Expr& e) override {
        for (size_t i = 0; i < n.indices.size(); ++i) record(n.buffer, i, n.indices[i]);
        note_table_load(n.buffer, n.indices);
        ir::IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_Binary(const ir::BinaryNode& n, const ir::Expr& e) override {
        using Op = ir::BinaryOp;
        if (n.op == Op::LT || n.op == Op::LE || n.op == Op::GT || n.op == Op::GE) {
            if (auto t = table_read(n.a)) compared_.emplace_back(*t, deps(n.b));
            if (auto t = table_read(n.b)) compared_.emplace_back(*t, deps(n.a));
        }
        ir::IRVisitor::visit_Binary(n, e);
    }
    void visit_BufferStore(const ir::BufferStoreNode& n, const ir::Stmt& s) override {
        for (size_t i = 0; i < n.indices.size(); ++i) record(n.buffer, i, n.indices[i]);
        taint_buffer(n.buffer, deps(n.value));
        ir::IRVisitor::visit_BufferStore(n, s);
    }
    void visit_LetStmt(const ir::LetStmtNode& n, const ir::Stmt& s) override {
        Deps d = deps(n.value);
        if (!d.empty()) merge(var_taint_[n.var.get()], d);
        ir::IRVisitor::visit_LetStmt(n, s);
    }
    void visit_Allocate(const ir::AllocateNode& n, const ir::Stmt& s) override {
        if (n.init) taint_buffer(n.buffer, deps(n.init));
        ir::IRVisitor::visit_Allocate(n, s);
    }
    void visit_CopyOp(const ir::CopyOpNode& n, const ir::Stmt& s) override {
        visit_region_uses(n.src);
        visit_region_uses(n.dst);
        Deps d;
        if (auto t = tables_.find(n.src.buffer.get()); t != tables_.end()) d[t->second] = 1;
        if (auto b = buf_taint_.find(n.src.buffer.get()); b != buf_taint_.end()) merge(d, b->second);
        taint_buffer(n.dst.buffer, d);
        ir::IRVisitor::visit_CopyOp(n, s);
    }
    void visit_AtomicAddOp(const ir::AtomicAddOpNode& n, const ir::Stmt& s) override {
        visit_region_uses(n.dst);
        if (auto* r = std::get_if<ir::BufferRegion>(&n.src)) visit_region_uses(*r);
        ir::IRVisitor::visit_AtomicAddOp(n, s);
    }
    void visit_FillOp(const ir::FillOpNode& n, const ir::Stmt& s) override {
        visit_region_uses(n.dst);
        ir::IRVisitor::visit_FillOp(n, s);
    }
    void visit_GemmOp(const ir::GemmOpNode& n, const ir::Stmt& s) override {
        visit_region_uses(n.A);
        visit_region_uses(n.B);
        visit_region_uses(n.C);
        ir::IRVisitor::visit_GemmOp(n, s);
    }
    void visit_KernelLaunch(const ir::KernelLaunchNode& n, const ir::Stmt& s) override {
        struct Vars : ir::IRVisitor {
            std::set<const ir::VarNode*>* out;
            void visit_Var(const ir::VarNode& v, const ir::Expr&) override { out->insert(&v); }
        } vars;
        vars.out = &grid_vars_;
        for (const auto& g : n.grid) vars.visit(g);
        ir::IRVisitor::visit_KernelLaunch(n, s);
    }

private:
    size_t taint_size() const {
        size_t n = 0;
        for (const auto& [k, v] : var_taint_) n += v.size();
        for (const auto& [k, v] : buf_taint_) n += v.size();
        return n;
    }

    const ir::PrimFunc& f_;
    const std::vector<std::vector<int64_t>>& shapes_;
    std::map<const ir::BufferNode*, size_t> params_;
    std::map<const ir::VarNode*, Deps> var_taint_;
    std::map<const ir::BufferNode*, Deps> buf_taint_;
};

bool is_offsets_table(const Follow& w, size_t table) {
    auto a = w.loads_at_.find(table);
    auto b = w.loads_at_minus1_.find(table);
    if (a == w.loads_at_.end() || b == w.loads_at_minus1_.end()) return false;
    return std::any_of(b->second.begin(), b->second.end(), [&](const std::string& x) { return a->second.count(x) > 0; });
}

}  // namespace

IndexPlan plan_index_inputs(const ir::PrimFunc& f, const std::vector<std::vector<int64_t>>& shapes, const std::map<std::string, int64_t>& symbols) {
    IndexPlan plan;
    Follow w(f, shapes);
    w.run();
    const auto& params = f.params;

    // Offsets tables first: their total is the smallest dimension their values index, and a
    // position that is added to an offset is relative to its segment.
    std::map<size_t, int64_t> segment;  // offsets table -> its shortest segment
    for (const auto& [buf, i] : w.tables_) {
        if (shapes[i].size() != 1 || shapes[i][0] < 2 || !is_offsets_table(w, i)) continue;
        IndexFill fill{IndexFill::Kind::Offsets, -1, 0, ""};
        for (const auto& u : w.uses_)
            if (u.deps.count(i) && (fill.total < 0 || u.extent < fill.total)) {
                fill.total = u.extent;
                fill.why = u.where;
            }
        if (fill.total < 0) continue;
        segment[i] = fill.total / (shapes[i][0] - 1);
        plan.fills[i] = fill;
    }
    for (const auto& [buf, i] : w.tables_) {
        if (plan.fills.count(i)) continue;
        IndexFill fill{IndexFill::Kind::Positions, 0, -1, ""};
        for (const auto& u : w.uses_) {
            auto dep = u.deps.find(i);
            if (dep == u.deps.end()) continue;
            int64_t bound = u.extent - u.added;
            for (const auto& [d, scale] : u.deps)
                if (segment.count(d)) bound = std::min(bound, segment[d]);  // a position inside a segment
            if (bound > 0) bound = (bound - 1) / dep->second + 1;           // v * scale must stay below it
            if (fill.bound < 0 || bound < fill.bound) {
                fill.bound = bound;
                fill.why = u.where;
            }
        }
        if (fill.bound > 0) plan.fills[i] = fill;
    }

    // A table that indexes nothing but bounds positions drawn from other tables: lengths, each
    // one past the largest position those tables can give (bound * the constant they are
    // multiplied by on the way, `i_s * block_N + j`), so no block they select is masked whole.
    for (const auto& [i, other] : w.compared_) {
        if (plan.fills.count(i)) continue;
        IndexFill fill{IndexFill::Kind::Lengths, -1, 0, ""};
        for (const auto& [t, scale] : other) {
            auto p = plan.fills.find(t);
            if (scale <= 0 || p == plan.fills.end() || p->second.kind != IndexFill::Kind::Positions) continue;
            if (p->second.bound * scale > fill.total) {
                fill.total = p->second.bound * scale;
                fill.why = "`" + params[t].name + "`";
            }
        }
        if (fill.total > 0) plan.fills[i] = fill;
    }

    // A scalar grid size the run was not given (`T.ceildiv(max_seqlen, block_M)`): the longest
    // segment of the offsets tables, as the files compute it from the lengths they draw.
    int64_t longest = 0;
    for (const auto& [i, fill] : plan.fills)
        if (fill.kind == IndexFill::Kind::Offsets) longest = std::max(longest, (fill.total + shapes[i][0] - 2) / (shapes[i][0] - 1));
    for (const auto& p : params)
        if (p.var && p.var->dtype.is_int() && !symbols.count(p.name) && w.grid_vars_.count(p.var.get()) && longest > 0) {
            plan.scalars[p.name] = longest;
            plan.notes.push_back("`" + p.name + "` = " + std::to_string(longest) + ": the longest segment of the offsets tables");
        }
    for (const auto& [i, fill] : plan.fills) {
        const std::string name = "`" + params[i].name + "`: ";
        switch (fill.kind) {
            case IndexFill::Kind::Offsets:
                plan.notes.push_back(name + "evenly spaced offsets 0.." + std::to_string(fill.total) + " (they index " + fill.why + ")");
                break;
            case IndexFill::Kind::Positions:
                plan.notes.push_back(name + "positions in [0, " + std::to_string(fill.bound) + ") (they index " + fill.why + ")");
                break;
            case IndexFill::Kind::Lengths:
                plan.notes.push_back(name + "lengths, each " + std::to_string(fill.total) + " (past every position " + fill.why + " selects)");
                break;
        }
    }
    return plan;
}

std::vector<double> index_fill_values(const IndexFill& fill, int64_t numel, uint64_t seed) {
    std::vector<double> out(static_cast<size_t>(std::max<int64_t>(numel, 0)));
    if (fill.kind == IndexFill::Kind::Offsets) {
        for (int64_t k = 0; k < numel; ++k) out[static_cast<size_t>(k)] = static_cast<double>(k * fill.total / std::max<int64_t>(numel - 1, 1));
        return out;
    }
    if (fill.kind == IndexFill::Kind::Lengths) {
        std::fill(out.begin(), out.end(), static_cast<double>(fill.total));
        return out;
    }
    // SplitMix64, counter based like HostTensor::fill_random.
    uint64_t state = seed * 0x2545F4914F6CDD1Dull + 0x9E3779B97F4A7C15ull;
    for (auto& v : out) {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        v = static_cast<double>(z % static_cast<uint64_t>(fill.bound));
    }
    return out;
}

}  // namespace tp::interp
