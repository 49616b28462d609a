// What fragment layout inference reads off a kernel in one walk: the fragments, the tile ops
// that lay them out (gemms, reductions, copies, atomic adds), every T.Parallel nest with the
// fragment accesses in it, and the fragments accessed outside any nest. Shared by
// layout_inference.cpp and the refinements it runs after (striped_rows.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "ir/functor.h"

namespace tp::transform::layout_detail {

using namespace ir;

inline std::vector<int64_t> const_shape(const Buffer& b) {
    std::vector<int64_t> s;
    for (const auto& d : b->shape) {
        auto c = as_const_int(d);
        if (!c) return {};
        s.push_back(*c);
    }
    return s;
}

struct Access {
    const BufferNode* buffer;
    std::vector<Expr> indices;
    bool write = false;
};
struct Nest {
    std::vector<const VarNode*> vars;
    std::vector<int64_t> extents;  // empty when not constant
    std::vector<Access> frags;
    Span span;
};

class Collector : public IRVisitor {
public:
    int64_t threads = 0;
    std::map<const BufferNode*, Buffer> frags;
    std::vector<const GemmOpNode*> gemms;
    std::vector<const ReduceOpNode*> reduces;
    std::vector<const CopyOpNode*> copies;
    std::vector<const BufferNode*> atomic_srcs;  // fragments T.atomic_add adds from
    std::vector<Nest> nests;
    std::set<const BufferNode*> scalar;   // fragments accessed outside every T.Parallel loop
    std::set<const BufferNode*> printed;  // fragments T.print prints whole
    Nest* cur = nullptr;

    void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        threads = n.num_threads();
        IRVisitor::visit_KernelLaunch(n, s);
    }
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        if (n.buffer->scope == Scope::Fragment) frags[n.buffer.get()] = n.buffer;
        IRVisitor::visit_Allocate(n, s);
    }
    void visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        gemms.push_back(&n);
        IRVisitor::visit_GemmOp(n, s);
    }
    void visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override {
        reduces.push_back(&n);
        IRVisitor::visit_ReduceOp(n, s);
    }
    void visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        copies.push_back(&n);
        // A copy of one element is a plain assignment once lowered: a scalar access.
        bool one = true;
        for (const auto& r : n.src.region) one &= as_const_int(r.extent) == 1;
        for (const BufferRegion* r : {&n.src, &n.dst})
            if (one && r->buffer->scope == Scope::Fragment && !cur) scalar.insert(r->buffer.get());
        IRVisitor::visit_CopyOp(n, s);
    }
    void visit_PrintOp(const PrintOpNode& n, const Stmt& s) override {
        if (auto* b = std::get_if<Buffer>(&n.value)) printed.insert(b->get());
        IRVisitor::visit_PrintOp(n, s);
    }
    void visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override {
        if (auto* r = std::get_if<BufferRegion>(&n.src)) atomic_srcs.push_back(r->buffer.get());
        IRVisitor::visit_AtomicAddOp(n, s);
    }
    void visit_For(const ForNode& n, const Stmt& s) override {
        if (n.for_kind != ForKind::Parallel || cur) return IRVisitor::visit_For(n, s);
        Nest nest;
        nest.span = n.span;
        const ForNode* f = &n;
        bool const_ext = true;
        while (true) {
            nest.vars.push_back(f->loop_var.get());
            auto e = as_const_int(f->extent);
            const_ext &= e.has_value() && as_const_int(f->min) == 0;
            nest.extents.push_back(e ? *e : -1);
            auto* inner = f->body->as<ForNode>();
            if (!inner || inner->for_kind != ForKind::Parallel) break;
            f = inner;
        }
        if (!const_ext) nest.extents.clear();
        nests.push_back(std::move(nest));
        cur = &nests.back();
        IRVisitor::visit_For(n, s);
        cur = nullptr;
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        note(n.buffer, n.indices, false);
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        note(n.buffer, n.indices, true);
        IRVisitor::visit_BufferStore(n, s);
    }
    void note(const Buffer& b, const std::vector<Expr>& idx, bool write) {
        if (b->scope != Scope::Fragment) return;
        if (cur)
            cur->frags.push_back({b.get(), idx, write});
        else
            scalar.insert(b.get());
    }
};

}  // namespace tp::transform::layout_detail
