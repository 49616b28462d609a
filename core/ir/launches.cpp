// Splitting a kernel function into its launches and joining them back; see launches.h.
#include "ir/launches.h"

#include "ir/functor.h"

namespace tp::ir {

namespace {

struct LaunchCounter : IRVisitor {
    size_t n = 0;
    void visit_KernelLaunch(const KernelLaunchNode&, const Stmt&) override { ++n; }  // launches do not nest
};

// `s` with every launch but the `want`-th removed; `seen` counts launches passed so far.
// Null when nothing of `s` is left.
Stmt keep_launch(const Stmt& s, size_t want, size_t& seen) {
    if (!s) return s;
    if (s->as<KernelLaunchNode>()) return seen++ == want ? s : nullptr;
    if (auto* q = s->as<SeqStmtNode>()) {
        std::vector<Stmt> kept;
        for (const auto& c : q->seq)
            if (Stmt k = keep_launch(c, want, seen)) kept.push_back(k);
        if (kept.empty()) return nullptr;
        return kept.size() == 1 ? kept[0] : make_seq(std::move(kept), s->span);
    }
    if (auto* l = s->as<LetStmtNode>()) {
        Stmt b = keep_launch(l->body, want, seen);
        if (!b) return nullptr;
        return b == l->body ? s : std::make_shared<LetStmtNode>(l->var, l->value, b, l->span);
    }
    if (auto* a = s->as<AllocateNode>()) {
        Stmt b = keep_launch(a->body, want, seen);
        if (!b) return nullptr;
        return b == a->body ? s : std::make_shared<AllocateNode>(a->buffer, a->init, b, a->span);
    }
    // Device code outside a launch never reaches here (TileOpOutsideKernel); it would belong
    // to no launch of several.
    TP_ICHECK(false, std::string("a ") + node_kind_name(s->kind) + " statement outside the kernel launches of a function with several");
    return nullptr;
}

}  // namespace

size_t count_launches(const Stmt& s) {
    LaunchCounter c;
    c.visit(s);
    return c.n;
}

std::vector<PrimFuncPtr> split_launches(const PrimFuncPtr& f) {
    const size_t n = f ? count_launches(f->body) : 0;
    if (n <= 1) return {f};
    std::vector<PrimFuncPtr> parts;
    for (size_t i = 0; i < n; ++i) {
        size_t seen = 0;
        auto part = std::make_shared<PrimFunc>(*f);
        part->body = keep_launch(f->body, i, seen);
        TP_ICHECK(part->body && count_launches(part->body) == 1, "splitting launch " + std::to_string(i) + " of `" + f->name + "`");
        parts.push_back(std::move(part));
    }
    return parts;
}

PrimFuncPtr join_launches(const std::vector<PrimFuncPtr>& parts) {
    TP_ICHECK(!parts.empty(), "joining no launches");
    if (parts.size() == 1) return parts[0];
    auto joined = std::make_shared<PrimFunc>(*parts[0]);
    std::vector<Stmt> bodies;
    for (const auto& p : parts) {
        bodies.push_back(p->body);
        joined->attrs.insert(p->attrs.begin(), p->attrs.end());  // insert keeps the first launch's value
    }
    joined->body = make_seq(std::move(bodies), parts[0]->span);
    return joined;
}

}  // namespace tp::ir
