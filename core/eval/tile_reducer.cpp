// T.alloc_reducer / T.finalize_reducer: a fragment that T.Parallel loops accumulate into along
// dimensions that do not index it (`o[i] += a[i, j] * x[j]` over i, j). TileLang gives each
// thread a replica and combines the replicas at T.finalize_reducer. Here the loop variables
// that do not index the reducer run serially inside the others instead, so each element is
// accumulated by one thread in order: there are no replicas, and T.finalize_reducer has no
// combining left to do (it checks its argument).
#include "eval/tile_internal.h"
#include "ir/functor.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "memory"}, std::move(fn)});
}

Value alloc_reducer(Evaluator& ev, CallArgs& a) {
    Span span = a.span;
    Value op = take_keyword(a, "op");
    take_keyword(a, "replication");  // how TileLang lays out replicas; there are none here
    if (a.pos.size() > 2) {
        if (op.is_none()) op = a.pos[2];
        a.pos.resize(2);
        if (a.pos_spans.size() > 2) a.pos_spans.resize(2);
    }
    if (!op.is_none()) {
        const std::string o = ev.as_str(op, span, "op");
        if (o != "sum" && o != "max" && o != "min")
            ev.fail(DiagKind::TypeMismatch, span, {"`T.alloc_reducer` op must be \"sum\", \"max\" or \"min\", got \"" + o + "\""});
    }
    Value buf = alloc_tile(ev, a, "T.alloc_reducer", ir::Scope::Fragment);
    ev.reducers.insert(buf.as<BufferObj>()->b.get());
    return buf;
}

// The loop variables a store's indices read.
struct IndexVars : ir::IRVisitor {
    const std::set<const ir::BufferNode*>* reducers = nullptr;
    std::set<const ir::VarNode*> used;
    bool stores = false;
    void visit_BufferStore(const ir::BufferStoreNode& n, const ir::Stmt& s) override {
        if (reducers->count(n.buffer.get())) {
            stores = true;
            struct V : ir::IRVisitor {
                std::set<const ir::VarNode*>* out;
                void visit_Var(const ir::VarNode& v, const ir::Expr&) override { out->insert(&v); }
            } v;
            v.out = &used;
            for (const auto& i : n.indices) v.visit(i);
        }
        ir::IRVisitor::visit_BufferStore(n, s);
    }
};

}  // namespace

std::vector<bool> reducer_serial_vars(const Evaluator& ev, const ir::Stmt& body, const std::vector<ir::Var>& vars) {
    std::vector<bool> serial(vars.size(), false);
    if (ev.reducers.empty()) return serial;
    IndexVars iv;
    iv.reducers = &ev.reducers;
    iv.visit(body);
    if (!iv.stores) return serial;
    for (size_t i = 0; i < vars.size(); ++i) serial[i] = !iv.used.count(vars[i].get());
    return serial;
}

void register_tile_reducer(Reg& r) {
    add(r, "alloc_reducer", "T.alloc_reducer(shape, dtype, op=\"sum\", replication=None)",
        "a fragment T.Parallel loops accumulate into along dims that do not index it", alloc_reducer);
    add(r, "finalize_reducer", "T.finalize_reducer(reducer)", "end the accumulation into a T.alloc_reducer buffer",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.finalize_reducer", {"reducer"});
            require_kernel(ev, "T.finalize_reducer", a.span);
            ir::Buffer b = ev.as_buffer(rd.require(0), rd.span(0), "T.finalize_reducer");
            if (!ev.reducers.count(b.get()))
                ev.fail(DiagKind::TypeMismatch, rd.span(0), {"`T.finalize_reducer` expects a buffer from T.alloc_reducer, got `" + b->name + "`"});
            return Value::none();
        });
}

}  // namespace tp::eval
