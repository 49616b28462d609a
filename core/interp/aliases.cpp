// Dtype views on the CPU (see aliases.h).
#include "interp/aliases.h"

#include <algorithm>
#include <limits>

#include "ir/functor.h"

namespace tp::interp {

namespace {

constexpr const char* kAlias = "tp.alias.";

// The buffer a statement writes, for the statements that write one.
const ir::BufferNode* written_buffer(const ir::Stmt& s) {
    if (auto* n = s->as<ir::BufferStoreNode>()) return n->buffer.get();
    if (auto* n = s->as<ir::CopyOpNode>()) return n->dst.buffer.get();
    if (auto* n = s->as<ir::FillOpNode>()) return n->dst.buffer.get();
    if (auto* n = s->as<ir::GemmOpNode>()) return n->C.buffer.get();
    if (auto* n = s->as<ir::ReduceOpNode>()) return n->dst.get();
    if (auto* n = s->as<ir::AtomicAddOpNode>()) return n->dst.buffer.get();
    return nullptr;
}

struct Claim : CStmt {
    CStmtP inner;
    size_t group = 0;
    int self = -1;
    std::vector<int> others;
    void exec(Frame& fr) const override {
        if (fr.alias_owner.size() <= group) fr.alias_owner.resize(group + 1, -1);
        int& owner = fr.alias_owner[group];
        if (owner != self) {
            for (int o : others) {
                BufView& v = fr.bufs[static_cast<size_t>(o)];
                if (v.data) std::fill(v.data, v.data + v.size, std::numeric_limits<double>::quiet_NaN());
            }
            owner = self;
        }
        inner->exec(fr);
    }
};

}  // namespace

bool has_dtype_views(const ir::PrimFunc& f) {
    return std::any_of(f.attrs.begin(), f.attrs.end(), [](const auto& kv) { return kv.first.rfind(kAlias, 0) == 0; });
}

void set_alias_groups(Program& p, const ir::PrimFunc& f) {
    if (!has_dtype_views(f)) return;
    struct Allocs : ir::IRVisitor {
        std::map<std::string, ir::Buffer> by_name;
        void visit_Allocate(const ir::AllocateNode& n, const ir::Stmt& s) override {
            by_name[n.buffer->name] = n.buffer;
            ir::IRVisitor::visit_Allocate(n, s);
        }
    } allocs;
    allocs.visit(f.body);
    std::map<std::string, size_t> group_of;  // a tile's name -> its group
    for (const auto& [key, value] : f.attrs) {
        if (key.rfind(kAlias, 0) != 0) continue;
        const std::string view = key.substr(std::string(kAlias).size()), base = value.substr(0, value.find(':'));
        auto v = allocs.by_name.find(view), b = allocs.by_name.find(base);
        if (v == allocs.by_name.end() || b == allocs.by_name.end()) continue;  // not in this launch
        auto [g, fresh] = group_of.emplace(base, p.alias_slots.size());
        if (fresh) {
            p.alias_slots.emplace_back();
            p.alias_slots.back().push_back(p.buffer_slot(b->second));
            p.alias_group[b->second.get()] = g->second;
        }
        p.alias_slots[g->second].push_back(p.buffer_slot(v->second));
        p.alias_group[v->second.get()] = g->second;
    }
}

CStmtP claim_aliases(Program& p, const ir::Stmt& s, CStmtP inner) {
    if (p.alias_group.empty() || !s) return inner;
    const ir::BufferNode* b = written_buffer(s);
    auto g = b ? p.alias_group.find(b) : p.alias_group.end();
    if (g == p.alias_group.end()) return inner;
    auto n = std::make_unique<Claim>();
    n->span = s->span;
    n->group = g->second;
    n->self = p.buffer_slots.at(b);
    for (int slot : p.alias_slots[g->second])
        if (slot != n->self) n->others.push_back(slot);
    n->inner = std::move(inner);
    return n;
}

}  // namespace tp::interp
