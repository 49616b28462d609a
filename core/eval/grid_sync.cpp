// T.sync_grid as a launch boundary (see grid_sync.h).
#include "eval/grid_sync.h"

#include <algorithm>
#include <set>

#include "ir/functor.h"

namespace tp::eval {

namespace {

constexpr const char* kGridSync = "sync_grid";

bool is_marker(const ir::Stmt& s) {
    auto* e = s ? s->as<ir::EvaluateNode>() : nullptr;
    auto* c = e && e->value ? e->value->as<ir::CallNode>() : nullptr;
    return c && c->op == kGridSync;
}

// The first marker anywhere in `s`, for the one a loop or branch hides.
struct FindMarker : ir::IRVisitor {
    const ir::Stmt* found = nullptr;
    void visit_Evaluate(const ir::EvaluateNode& n, const ir::Stmt& s) override {
        if (!found && is_marker(s)) found = &s;
        ir::IRVisitor::visit_Evaluate(n, s);
    }
};

// The on-chip buffers and the variables a statement touches.
struct Uses : ir::IRVisitor {
    std::set<const ir::BufferNode*> buffers;
    std::set<const ir::VarNode*> vars;
    void visit_buffer(const ir::Buffer& b) override {
        if (b->scope != ir::Scope::Global) buffers.insert(b.get());
        ir::IRVisitor::visit_buffer(b);
    }
    void visit_Var(const ir::VarNode& n, const ir::Expr&) override { vars.insert(&n); }
};

Uses uses_of(const ir::Stmt& s) {
    Uses u;
    if (s) u.visit(s);
    return u;
}

// A piece of the body between two barriers: its statements, still to be wrapped.
using Pieces = std::vector<std::vector<ir::Stmt>>;

class Splitter {
public:
    explicit Splitter(Evaluator& ev) : ev_(ev) {}

    // `s` cut at its top-level markers: one piece more than the markers it holds.
    Pieces split(const ir::Stmt& s) {
        if (!s) return {{}};
        if (is_marker(s)) {
            markers_.push_back(s->span);
            return {{}, {}};
        }
        if (auto* q = s->as<ir::SeqStmtNode>()) {
            Pieces out{{}};
            for (const auto& c : q->seq) {
                Pieces p = split(c);
                out.back().insert(out.back().end(), p[0].begin(), p[0].end());
                for (size_t k = 1; k < p.size(); ++k) out.push_back(std::move(p[k]));
            }
            return out;
        }
        if (auto* l = s->as<ir::LetStmtNode>()) {
            size_t base = markers_.size();
            return wrap(split(l->body), s, l->span, base);
        }
        if (auto* a = s->as<ir::AllocateNode>()) {
            size_t base = markers_.size();
            return wrap(split(a->body), s, a->span, base);
        }
        FindMarker f;
        f.visit(s);
        if (f.found)
            ev_.fail(DiagKind::UnsupportedConstruct, (*f.found)->span,
                     {"T.sync_grid",
                      " inside a loop or branch; TilePlay ends the launch at a grid barrier and runs the code after it "
                      "as a second launch, so the barrier must sit at the top level of the `T.Kernel` body"});
        return {{s}};
    }

    std::vector<Span> markers_;

private:
    // Each piece of a Let's or Allocate's body in its own copy of the wrapper, where it uses it.
    // `base`: the markers before the wrapper's body, so piece k ends at marker base + k.
    Pieces wrap(Pieces inner, const ir::Stmt& wrapper, Span span, size_t base) {
        if (inner.size() == 1) return {{wrapper}};
        std::vector<size_t> users;
        for (size_t k = 0; k < inner.size(); ++k) {
            Uses u = uses_of(ir::make_seq(inner[k], span));
            bool uses = false;
            if (auto* l = wrapper->as<ir::LetStmtNode>()) uses = u.vars.count(l->var.get()) > 0;
            if (auto* a = wrapper->as<ir::AllocateNode>()) uses = u.buffers.count(a->buffer.get()) > 0;
            if (uses) users.push_back(k);
        }
        // The piece the value is made in: a let read from memory is read where it stands (before
        // piece 0's statements), a buffer's contents by its first user.
        const size_t made = reads_memory(wrapper) ? 0 : (users.empty() ? 0 : users[0]);
        if (!users.empty() && users.back() > made) crossing(wrapper, markers_[base + made]);
        Pieces out;
        for (size_t k = 0; k < inner.size(); ++k) {
            ir::Stmt body = ir::make_seq(std::move(inner[k]), span);
            bool keep = std::find(users.begin(), users.end(), k) != users.end();
            if (!keep || !body) {
                out.push_back(body ? std::vector<ir::Stmt>{body} : std::vector<ir::Stmt>{});
                continue;
            }
            if (auto* l = wrapper->as<ir::LetStmtNode>())
                out.push_back({std::make_shared<ir::LetStmtNode>(l->var, l->value, body, span)});
            else if (auto* a = wrapper->as<ir::AllocateNode>())
                out.push_back({std::make_shared<ir::AllocateNode>(a->buffer, a->init, body, span)});
        }
        return out;
    }

    // A let whose value loads from memory: its value is the memory's at the let.
    static bool reads_memory(const ir::Stmt& wrapper) {
        auto* l = wrapper->as<ir::LetStmtNode>();
        if (!l) return false;
        struct Loads : ir::IRVisitor {
            bool found = false;
            void visit_BufferLoad(const ir::BufferLoadNode&, const ir::Expr&) override { found = true; }
        } loads;
        loads.visit(l->value);
        return loads.found;
    }

    // A value used in a piece after the one it is made in: a let of a pure expression is
    // recomputed in each launch; anything read from memory, and every on-chip buffer, would not
    // carry over.
    void crossing(const ir::Stmt& wrapper, Span barrier) {
        if (auto* l = wrapper->as<ir::LetStmtNode>()) {
            if (reads_memory(wrapper)) fail_crossing("`" + l->var->name + "` read from memory before it and used after it", barrier);
            return;
        }
        if (auto* a = wrapper->as<ir::AllocateNode>()) fail_crossing("`" + a->buffer->name + "` used on both sides of it", barrier);
    }

    // `barrier`: the first one the value crosses.
    void fail_crossing(const std::string& what, Span barrier) {
        ev_.fail(DiagKind::UnsupportedConstruct, barrier,
                 {"T.sync_grid with " + what,
                  "; TilePlay runs the code after a grid barrier as a second launch of the same grid, where on-chip memory starts "
                  "afresh: pass the value through a global tensor (T.alloc_global), or allocate separate buffers for each side"});
    }

    Evaluator& ev_;
};

}  // namespace

ir::Stmt grid_sync_marker(Span span) { return std::make_shared<ir::EvaluateNode>(ir::make_call(kGridSync, {}, ir::DataType::void_(), span), span); }

std::vector<ir::Stmt> split_at_grid_syncs(Evaluator& ev, const ir::Stmt& launch) {
    auto* k = launch->as<ir::KernelLaunchNode>();
    FindMarker any;
    if (k) any.visit(k->body);
    if (!k || !any.found) return {launch};
    Splitter sp(ev);
    Pieces pieces = sp.split(k->body);
    std::vector<ir::Stmt> out;
    for (auto& p : pieces) {
        ir::Stmt body = ir::make_seq(std::move(p), launch->span);
        if (!body) continue;  // nothing between two barriers: no launch
        out.push_back(std::make_shared<ir::KernelLaunchNode>(k->grid, k->block_vars, k->threads, k->thread_vars, body, launch->span));
    }
    for (const Span& m : sp.markers_)
        ev.diags.report(DiagKind::FastPathNotTaken, m,
                        {"a cooperative launch for `T.sync_grid`", "no on-chip state lives across the barrier",
                         "the kernel ends there and the code after it runs as a second launch of the same grid, which "
                         "synchronises every block as the barrier does"});
    return out;
}

}  // namespace tp::eval
