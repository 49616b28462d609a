// drop_redundant_copies (see drop_redundant_copies.h): a forward walk over the structured IR that
// keeps, at each point, the copies whose destination tiles still hold what they copied.
#include "transform/drop_redundant_copies.h"

#include <algorithm>
#include <set>

#include "ir/functor.h"
#include "ir/intrinsics.h"
#include "ops/access.h"
#include "transform/box_predicate.h"
#include "transform/simplify.h"

namespace tp::transform {

using namespace ir;

namespace {

// A copy that ran and whose destination region still holds its source region's values. At most
// one per destination buffer: a copy first forgets every fact its write touches.
struct Fact {
    const CopyOpNode* copy;  // identity, to intersect the facts of two branches
    BufferRegion src, dst;   // normalised (see normalise)
};
using Facts = std::vector<Fact>;

// Whether an index expression reads memory or calls anything: then its value may differ between
// two copies that spell it the same way.
struct ReadsMemory : IRVisitor {
    bool found = false;
    void visit_BufferLoad(const BufferLoadNode&, const Expr&) override { found = true; }
    void visit_Call(const CallNode&, const Expr&) override { found = true; }
};

bool reads_memory(const Expr& e) {
    ReadsMemory r;
    r.visit(e);
    return r.found;
}

// Equal constants of any integer type, or the same expression.
bool same_value(const Expr& a, const Expr& b) {
    auto x = as_const_int(a), y = as_const_int(b);
    return x && y ? *x == *y : same_expr(a, b);
}

bool same_region(const BufferRegion& a, const BufferRegion& b) {
    if (a.buffer != b.buffer || a.region.size() != b.region.size()) return false;
    for (size_t d = 0; d < a.region.size(); ++d)
        if (!same_value(a.region[d].min, b.region[d].min) || !same_value(a.region[d].extent, b.region[d].extent)) return false;
    return true;
}

bool mentions(const BufferRegion& r, const VarNode* v) {
    Box box{{v, 1}};
    for (const auto& rg : r.region)
        if (uses_box(rg.min, box) || uses_box(rg.extent, box)) return true;
    return false;
}

bool has_break(const Stmt& s) {
    struct Finder : IRVisitor {
        bool found = false;
        void visit_Break(const BreakNode&, const Stmt&) override { found = true; }
    } f;
    f.visit(s);
    return f.found;
}

using VarValues = std::map<const VarNode*, Expr>;

// A loop whose body runs exactly once, in line, with its variable at its start.
bool runs_once(const ForNode& n) { return as_const_int(n.extent) == 1 && !reads_memory(n.min) && !has_break(n.body); }

// The region with each run-once loop variable of `once` at its start, simplified; nothing when
// its indices read memory.
std::optional<BufferRegion> normalise(const BufferRegion& r, const VarValues& once) {
    BufferRegion out{r.buffer, {}};
    for (const auto& rg : r.region) {
        if (reads_memory(rg.min) || reads_memory(rg.extent)) return std::nullopt;
        out.region.push_back({simplify_expr(substitute(rg.min, once)), simplify_expr(substitute(rg.extent, once))});
    }
    return out;
}

// Whether a copy of these (normalised) regions copies the source region of a fact into its destination
// region: the values that fact's destination holds.
bool rewrites_fact(const std::optional<BufferRegion>& src, const std::optional<BufferRegion>& dst, const Facts& facts) {
    if (!src || !dst) return false;
    for (const auto& f : facts)
        if (same_region(f.src, *src) && same_region(f.dst, *dst)) return true;
    return false;
}

// The buffers a statement may write, or `all` when it may change what a fact relies on in ways
// no buffer names (the block indices a swizzle remaps, barrier and warp-role code). A buffer
// whose element a call receives may be written through its address: any call's direct element
// arguments, and every element inside the arguments of a call that is not an intrinsic.
struct Writes : ops::OpAccessVisitor {
    std::set<const BufferNode*> bufs;
    bool all = false;
    int opaque_calls = 0;
    const Facts* rewrites = nullptr;  // copies that match one of these write the values it holds
    VarValues once;                   // the run-once loops around the statement being visited

    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        bufs.insert(n.buffer.get());
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        bufs.insert(n.buffer.get());
        IRVisitor::visit_Allocate(n, s);
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        if (opaque_calls > 0) bufs.insert(n.buffer.get());
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        for (const auto& a : n.args)
            if (auto* l = a ? a->as<BufferLoadNode>() : nullptr) bufs.insert(l->buffer.get());
        bool opaque = !find_intrinsic(n.op);
        opaque_calls += opaque;
        IRVisitor::visit_Call(n, e);
        opaque_calls -= opaque;
    }
    void visit_For(const ForNode& n, const Stmt& s) override {
        bool one = runs_once(n);
        if (one) once[n.loop_var.get()] = simplify_expr(substitute(n.min, once));
        IRVisitor::visit_For(n, s);
        if (one) once.erase(n.loop_var.get());
    }
    // A copy that rewrites the values a fact holds leaves that fact (and, being the only fact on
    // its destination, every other) true: it is no write for the facts.
    void visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        if (rewrites && !n.barrier && rewrites_fact(normalise(n.src, once), normalise(n.dst, once), *rewrites)) {
            IRVisitor::visit_CopyOp(n, s);
            return;
        }
        OpAccessVisitor::visit_CopyOp(n, s);
    }
    void visit_SwizzleOp(const SwizzleOpNode& n, const Stmt& s) override {
        all = true;
        IRVisitor::visit_SwizzleOp(n, s);
    }
    void visit_BarrierOp(const BarrierOpNode& n, const Stmt& s) override {
        all = true;
        IRVisitor::visit_BarrierOp(n, s);
    }
    void visit_WarpRoles(const WarpRolesNode& n, const Stmt& s) override {
        all = true;
        IRVisitor::visit_WarpRoles(n, s);
    }
    void visit_RoleBlock(const RoleBlockNode& n, const Stmt& s) override {
        all = true;
        IRVisitor::visit_RoleBlock(n, s);
    }
    void on_op(const StmtNode&, const ops::OpAccess& a) override {
        for (const auto& w : a.writes) bufs.insert(w.buffer.get());
    }
    bool touches(const Fact& f) const { return all || bufs.count(f.src.buffer.get()) || bufs.count(f.dst.buffer.get()); }
};

void forget(Facts& facts, const Writes& w) {
    std::erase_if(facts, [&](const Fact& f) { return w.touches(f); });
}

void forget_var(Facts& facts, const VarNode* v) {
    std::erase_if(facts, [&](const Fact& f) { return mentions(f.src, v) || mentions(f.dst, v); });
}

// An empty statement list where a removed copy was a loop's or branch's whole body.
Stmt or_empty(const Stmt& s) { return s ? s : std::make_shared<SeqStmtNode>(std::vector<Stmt>{}); }

class Dropper {
public:
    std::set<const BufferNode*> global_writes;  // every global buffer the kernel may write

    // s with the copies the facts make redundant removed (null when s was one); `facts` becomes
    // what holds after s.
    Stmt walk(const Stmt& s, Facts& facts) {
        switch (s->kind) {
            case NodeKind::SeqStmt:
                return walk_seq(static_cast<const SeqStmtNode&>(*s), s, facts);
            case NodeKind::CopyOp:
                return walk_copy(static_cast<const CopyOpNode&>(*s), s, facts);
            case NodeKind::For:
                return walk_for(static_cast<const ForNode&>(*s), s, facts);
            case NodeKind::While:
                return walk_while(static_cast<const WhileNode&>(*s), s, facts);
            case NodeKind::IfThenElse:
                return walk_if(static_cast<const IfThenElseNode&>(*s), s, facts);
            case NodeKind::LetStmt:
                return walk_let(static_cast<const LetStmtNode&>(*s), s, facts);
            case NodeKind::Allocate:
                return walk_allocate(static_cast<const AllocateNode&>(*s), s, facts);
            case NodeKind::KernelLaunch: {
                // Each launch starts with tiles that hold nothing.
                auto& k = static_cast<const KernelLaunchNode&>(*s);
                Facts inner;
                Stmt b = or_empty(walk(k.body, inner));
                facts.clear();
                if (b == k.body) return s;
                auto n = std::make_shared<KernelLaunchNode>(k);
                n->body = b;
                return n;
            }
            default: {
                // Stores, the other tile ops, calls, warp roles: only what they may write.
                forget(facts, writes_of(s, nullptr));
                return s;
            }
        }
    }

private:
    VarValues once;  // the variable of each enclosing loop that runs once: its start

    Writes writes_of(const Stmt& s, const Facts* rewriting) const {
        Writes w;
        w.rewrites = rewriting;
        w.once = once;
        w.visit(s);
        return w;
    }

    // Forgets what a loop `s` may write in any iteration. A copy that rewrites what a fact holds
    // is no write, but only while that fact survives the loop's other writes (a copy from a
    // source the loop changes writes new values): repeated until the surviving facts settle.
    void forget_loop_writes(const Stmt& s, Facts& facts) const {
        for (size_t before = facts.size() + 1; facts.size() < before;) {
            before = facts.size();
            forget(facts, writes_of(s, &facts));
        }
    }

    Stmt walk_seq(const SeqStmtNode& n, const Stmt& s, Facts& facts) {
        std::vector<Stmt> out;
        bool changed = false;
        for (const auto& c : n.seq) {
            Stmt m = walk(c, facts);
            changed |= m != c;
            out.push_back(m);
        }
        return changed ? make_seq(out, n.span) : s;
    }

    Stmt walk_copy(const CopyOpNode& n, const Stmt& s, Facts& facts) {
        auto src = normalise(n.src, once), dst = normalise(n.dst, once);
        Scope ds = n.dst.buffer->scope;
        bool global_src = n.src.buffer->scope == Scope::Global;
        bool usable = !n.barrier && src && dst && (ds == Scope::Fragment || ds == Scope::Shared) && n.src.buffer != n.dst.buffer &&
                      (!global_src || !global_writes.count(n.src.buffer.get()));
        if (usable && rewrites_fact(src, dst, facts)) return nullptr;
        forget(facts, writes_of(s, nullptr));
        if (usable) facts.push_back({&n, *src, *dst});
        return s;
    }

    Stmt walk_for(const ForNode& n, const Stmt& s, Facts& facts) {
        Stmt body;
        if (runs_once(n)) {
            // Its body runs exactly once, in line: its facts hold after it, at the start value.
            once[n.loop_var.get()] = simplify_expr(substitute(n.min, once));
            body = walk(n.body, facts);
            once.erase(n.loop_var.get());
        } else {
            // Each iteration starts with what no iteration writes; nothing it copies is known after.
            forget_loop_writes(s, facts);
            forget_var(facts, n.loop_var.get());
            Facts inner = facts;
            body = walk(n.body, inner);
        }
        if (body == n.body) return s;
        auto f = std::make_shared<ForNode>(n);
        f->body = or_empty(body);
        return f;
    }

    Stmt walk_while(const WhileNode& n, const Stmt& s, Facts& facts) {
        forget_loop_writes(s, facts);
        Facts inner = facts;
        Stmt body = walk(n.body, inner);
        if (body == n.body) return s;
        return std::make_shared<WhileNode>(n.cond, or_empty(body), n.span);
    }

    Stmt walk_if(const IfThenElseNode& n, const Stmt& s, Facts& facts) {
        Writes c;
        c.visit(n.cond);
        forget(facts, c);
        // After the branch only what holds on both paths: facts from before that neither killed.
        Facts a = facts, b = facts;
        Stmt t = walk(n.then_case, a);
        Stmt e = n.else_case ? walk(n.else_case, b) : nullptr;
        std::erase_if(facts, [&](const Fact& f) {
            auto in = [&](const Facts& fs) { return std::any_of(fs.begin(), fs.end(), [&](const Fact& g) { return g.copy == f.copy; }); };
            return !in(a) || !in(b);
        });
        if (t == n.then_case && e == n.else_case) return s;
        return std::make_shared<IfThenElseNode>(n.cond, or_empty(t), e, n.span);
    }

    Stmt walk_let(const LetStmtNode& n, const Stmt& s, Facts& facts) {
        Writes v;
        v.visit(n.value);
        forget(facts, v);
        // Facts naming the variable mean nothing outside this binding (nor under another).
        forget_var(facts, n.var.get());
        Stmt body = walk(n.body, facts);
        forget_var(facts, n.var.get());
        if (body == n.body) return s;
        return std::make_shared<LetStmtNode>(n.var, n.value, or_empty(body), n.span);
    }

    Stmt walk_allocate(const AllocateNode& n, const Stmt& s, Facts& facts) {
        auto gone = [&](const Fact& f) { return f.src.buffer == n.buffer || f.dst.buffer == n.buffer; };
        std::erase_if(facts, gone);
        Stmt body = walk(n.body, facts);
        std::erase_if(facts, gone);
        if (body == n.body) return s;
        auto a = std::make_shared<AllocateNode>(n);
        a->body = or_empty(body);
        return a;
    }
};

}  // namespace

PrimFuncPtr drop_redundant_copies(const PrimFuncPtr& func) {
    auto it = func->attrs.find("tp.drop_redundant_copies");
    if (it != func->attrs.end() && it->second == "false") return func;
    Writes all;
    all.visit(func->body);
    Dropper d;
    d.global_writes = all.bufs;  // barriers and swizzles (`all`) write no tensor
    Facts facts;
    Stmt body = d.walk(func->body, facts);
    if (body == func->body) return func;
    auto f = std::make_shared<PrimFunc>(*func);
    f->body = or_empty(body);
    return f;
}

}  // namespace tp::transform
