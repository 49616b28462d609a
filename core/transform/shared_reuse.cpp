// Shared buffers with disjoint lifetimes share bytes when the kernel would not fit otherwise;
// see shared_reuse.h.
#include "transform/shared_reuse.h"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "ir/functor.h"
#include "transform/shared_budget.h"

namespace tp::transform {

using namespace ir;

namespace {

const char* kOffsetKey = "tp.smem_offset.";
const char* kBytesKey = "tp.smem_bytes";

// The shared buffers a statement touches, and whether it starts a copy that may still be
// running when the statement ends (cp.async, TMA), whose buffers must then stay live.
struct Touches : IRVisitor {
    std::set<const BufferNode*> shared;
    bool async = false;    // TMA, wgmma: no wait we track, live to the end
    bool cp_async = false;  // cp.async: complete at the next wait for all groups
    bool drains = false;    // waits for every cp.async group
    bool roles = false;
    void visit_buffer(const Buffer& b) override {
        if (b->scope == Scope::Shared) shared.insert(b.get());
        IRVisitor::visit_buffer(b);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        if (n.op == "tp.call_async") cp_async = true;
        if ((n.op == "tp.call" || n.op == "tp.call_async") && !n.args.empty()) {
            auto* s = n.args[0]->as<StringImmNode>();
            // TMA copies and wgmma read or write shared memory after the call returns.
            if (s && (s->value.find("tma") != std::string::npos || s->value.find("wgmma") != std::string::npos)) async = true;
            if (s && s->value == "tp::cp_async_wait<0>") drains = true;
        }
        IRVisitor::visit_Call(n, e);
    }
    void visit_WarpRoles(const WarpRolesNode& n, const Stmt& s) override {
        roles = true;
        IRVisitor::visit_WarpRoles(n, s);
    }
};

bool touches_shared(const Expr& e) {
    Touches t;
    t.visit(e);
    return !t.shared.empty();
}

// The kernel body's straight-line statements: sequences, lets and allocations are opened; a
// let whose value reads shared memory is one statement with its body.
bool opens(const Stmt& s) {
    if (s->as<SeqStmtNode>() || s->as<AllocateNode>()) return true;
    if (auto* l = s->as<LetStmtNode>()) return !touches_shared(l->value);
    return false;
}
void collect(const Stmt& s, std::vector<Stmt>& leaves, std::vector<Buffer>& allocs) {
    if (!s) return;
    if (!opens(s)) return leaves.push_back(s);
    if (auto* q = s->as<SeqStmtNode>()) {
        for (const auto& c : q->seq) collect(c, leaves, allocs);
    } else if (auto* a = s->as<AllocateNode>()) {
        if (a->buffer->scope == Scope::Shared) allocs.push_back(a->buffer);
        collect(a->body, leaves, allocs);
    } else {
        collect(s->as<LetStmtNode>()->body, leaves, allocs);
    }
}
Stmt rebuild(const Stmt& s, const std::set<const StmtNode*>& sync_before) {
    if (!s) return s;
    if (!opens(s)) {
        if (!sync_before.count(s.get())) return s;
        return make_seq({std::make_shared<EvaluateNode>(make_call("__syncthreads", {}, DataType::void_(), s->span), s->span), s}, s->span);
    }
    if (auto* q = s->as<SeqStmtNode>()) {
        std::vector<Stmt> seq;
        for (const auto& c : q->seq) seq.push_back(rebuild(c, sync_before));
        return make_seq(std::move(seq), q->span);
    }
    if (auto* a = s->as<AllocateNode>()) return std::make_shared<AllocateNode>(a->buffer, a->init, rebuild(a->body, sync_before), a->span);
    auto* l = s->as<LetStmtNode>();
    return std::make_shared<LetStmtNode>(l->var, l->value, rebuild(l->body, sync_before), l->span);
}

struct Slot {
    Buffer buffer;
    int64_t bytes = 0, align = 16, offset = 0;
    size_t first = 0, last = 0;  // top-level statements, inclusive
};

bool live_together(const Slot& a, const Slot& b) { return a.first <= b.last && b.first <= a.last; }
bool bytes_overlap(const Slot& a, const Slot& b) { return a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes; }

// First fit in allocation order among the slots already placed that are live at the same time.
void place(std::vector<Slot>& slots) {
    for (size_t i = 0; i < slots.size(); ++i) {
        Slot& s = slots[i];
        std::vector<int64_t> candidates{0};
        for (size_t j = 0; j < i; ++j)
            if (live_together(s, slots[j])) candidates.push_back(slots[j].offset + slots[j].bytes);
        std::sort(candidates.begin(), candidates.end());
        for (int64_t c : candidates) {
            s.offset = (c + s.align - 1) / s.align * s.align;
            bool clash = false;
            for (size_t j = 0; j < i && !clash; ++j) clash = live_together(s, slots[j]) && bytes_overlap(s, slots[j]);
            if (!clash) break;
        }
    }
}

// The kernel's straight-line statements and shared allocations; false for warp-specialized
// kernels or a function without a launch.
bool kernel_leaves(const PrimFunc& f, const KernelLaunchNode** k, std::vector<Stmt>& leaves, std::vector<Buffer>& allocs) {
    struct Find : IRVisitor {
        const KernelLaunchNode* k = nullptr;
        void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt&) override { k = &n; }
    } find;
    find.visit(f.body);
    if (!find.k) return false;
    *k = find.k;
    collect(find.k->body, leaves, allocs);
    return !leaves.empty();
}

std::vector<SharedLifetime> lifetimes_of(const std::vector<Stmt>& leaves, const std::vector<Buffer>& allocs) {
    std::vector<SharedLifetime> out;
    for (const auto& b : allocs) out.push_back({b, leaves.size(), 0});
    std::vector<Touches> touches(leaves.size());
    for (size_t t = 0; t < leaves.size(); ++t) {
        touches[t].visit(leaves[t]);
        if (touches[t].roles) return {};  // warp roles run concurrently: no order to reuse by
    }
    for (size_t t = 0; t < leaves.size(); ++t) {
        const Touches& tt = touches[t];
        // An asynchronous copy's buffers stay live until the copy is known to be complete.
        size_t end = t;
        if (tt.async) end = leaves.size() - 1;
        else if (tt.cp_async)
            for (end = t + 1; end < leaves.size() && !touches[end].drains; ++end) {}
        end = std::min(end, leaves.size() - 1);
        for (auto& l : out) {
            if (!tt.shared.count(l.buffer.get())) continue;
            l.first = std::min(l.first, t);
            l.last = std::max(l.last, end);
        }
    }
    // A buffer no statement names keeps first > last: it is live nowhere and takes no bytes
    // (TileLang's `Bias_shared` of a GEMM built without bias, 64 KiB).
    return out;
}

}  // namespace

std::vector<SharedLifetime> shared_lifetimes(const PrimFunc& f) {
    const KernelLaunchNode* k = nullptr;
    std::vector<Stmt> leaves;
    std::vector<Buffer> allocs;
    if (!kernel_leaves(f, &k, leaves, allocs)) return {};
    return lifetimes_of(leaves, allocs);
}

PrimFuncPtr share_shared_memory(const PrimFuncPtr& func, const Target& target) {
    bool aligned = aligned_shared_tiles(*func);
    if (shared_bytes(*func, aligned) <= shared_limit(target, aligned)) return func;
    const KernelLaunchNode* k = nullptr;
    std::vector<Stmt> leaves;
    std::vector<Buffer> allocs;
    if (!kernel_leaves(*func, &k, leaves, allocs) || allocs.empty()) return func;
    auto lives = lifetimes_of(leaves, allocs);
    if (lives.empty()) return func;
    // A dtype view (tp.alias.<view> = "<tile>:<bytes>") lies over its tile's bytes: the tile is
    // live wherever either is, and only the tile gets a slot (the code generator puts the view
    // at the tile's offset).
    for (auto v = lives.begin(); v != lives.end();) {
        auto alias = func->attrs.find("tp.alias." + v->buffer->name);
        const std::string base = alias == func->attrs.end() ? "" : alias->second.substr(0, alias->second.find(':'));
        auto b = std::find_if(lives.begin(), lives.end(), [&](const SharedLifetime& l) { return l.buffer->name == base; });
        if (b == lives.end()) {
            ++v;
            continue;
        }
        b->first = std::min(b->first, v->first);
        b->last = std::max(b->last, v->last);
        v = lives.erase(v);
    }
    std::vector<Slot> slots;
    for (const auto& l : lives) {
        int64_t elems = 1;
        for (const auto& d : l.buffer->shape) {
            auto c = as_const_int(d);
            if (!c) return func;
            elems *= *c;
        }
        const int64_t bytes = l.first > l.last ? 0 : elems * l.buffer->dtype.bytes();
        slots.push_back({l.buffer, bytes, aligned && l.buffer->shape.size() > 1 ? 1024 : 16, 0, l.first, l.last});
    }
    place(slots);
    int64_t total = 0;
    for (const auto& s : slots) total = std::max(total, s.offset + s.bytes);
    if (total > shared_limit(target, aligned)) return func;
    std::set<const StmtNode*> sync_before;
    for (const auto& a : slots)
        for (const auto& b : slots)
            if (&a != &b && a.last < b.first && bytes_overlap(a, b)) sync_before.insert(leaves[b.first].get());
    struct Relaunch : IRMutator {
        const std::set<const StmtNode*>* syncs = nullptr;
        Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt&) override {
            return std::make_shared<KernelLaunchNode>(n.grid, n.block_vars, n.threads, n.thread_vars, rebuild(n.body, *syncs), n.span);
        }
    } relaunch;
    relaunch.syncs = &sync_before;
    auto out = std::make_shared<PrimFunc>(*func);
    out->body = relaunch.mutate(func->body);
    for (const auto& s : slots) out->attrs[kOffsetKey + s.buffer->name] = std::to_string(s.offset);
    out->attrs[kBytesKey] = std::to_string(total);
    return out;
}

std::optional<int64_t> planned_shared_offset(const PrimFunc& f, const BufferNode& b) {
    auto it = f.attrs.find(kOffsetKey + b.name);
    if (it == f.attrs.end()) return std::nullopt;
    return std::stoll(it->second);
}

int64_t planned_shared_bytes(const PrimFunc& f) {
    auto it = f.attrs.find(kBytesKey);
    return it == f.attrs.end() ? 0 : std::stoll(it->second);
}

}  // namespace tp::transform
