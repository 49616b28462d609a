// TVM's cross-thread primitives as TileLang's examples write them: T.tvm_warp_shuffle (an IR
// call the code generator emits as __shfl_sync and the interpreter's thread mode exchanges
// between the warp's threads), and the cross-thread reduction idiom:
//
//     with T.attr(T.comm_reducer(lambda x, y: x + y, [identity]), "reduce_scope", handle):
//         T.evaluate(T.tvm_thread_allreduce(T.uint32(1), value, True, out[0], tk))
//
// is staged as plain thread-level IR: every thread writes its value into its own slot of a
// shared buffer and, after a block barrier, folds with the combiner the slots of the threads
// that differ from it only along the listed thread axes, in thread order. Every thread of a
// group gets the same result, as with TVM's lowering; the interpreter and the code generator
// see only loads, stores, a barrier and loops.
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "thread"}, std::move(fn)});
}

// T.comm_reducer(combiner, [identity]): the combiner is called at trace time on IR values.
struct ReducerObj : OpaqueObj {
    Value combiner;
    Value identity;
};

// T.attr(reducer, "reduce_scope", ...), consumed by `with`.
struct AttrScopeObj : OpaqueObj {
    std::shared_ptr<const ReducerObj> reducer;
};

const ReducerObj* as_reducer(const Value& v) { return v.kind == VK::Opaque ? dynamic_cast<const ReducerObj*>(v.obj.get()) : nullptr; }

Value comm_reducer(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.comm_reducer", {"combiner", "identity"});
    auto r = std::make_shared<ReducerObj>();
    r->what = "`T.comm_reducer`";
    r->combiner = rd.require(0);
    const Value& ids = rd.require(1);
    std::vector<Value> items = ids.kind == VK::List || ids.kind == VK::Tuple ? items_of(ids) : std::vector<Value>{ids};
    if (items.size() != 1)
        ev.fail(DiagKind::UnsupportedConstruct, rd.span(1),
                {"`T.comm_reducer` of " + std::to_string(items.size()) + " values", "; one value is reduced"});
    r->identity = items[0];
    return Value::make(VK::Opaque, r);
}

Value attr(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.attr", {"node", "key", "value"});
    const std::string key = ev.as_str(rd.require(1), rd.span(1), "T.attr key");
    const ReducerObj* r = as_reducer(rd.require(0));
    if (key != "reduce_scope" || !r)
        ev.fail(DiagKind::UnsupportedConstruct, a.span,
                {"`T.attr` with key \"" + key + "\"",
                 "; only `T.attr(T.comm_reducer(...), \"reduce_scope\", ...)` around T.tvm_thread_allreduce is staged"});
    auto s = std::make_shared<AttrScopeObj>();
    s->what = "`T.attr` scope";
    s->reducer = std::static_pointer_cast<const ReducerObj>(rd.require(0).obj);
    return Value::make(VK::Opaque, s);
}

// The kernel's thread axis a value names (T.get_thread_binding / the T.Kernel thread names).
size_t thread_axis(Evaluator& ev, const Value& v, Span span) {
    ir::Expr e = ev.to_expr(v, span, "thread index");
    if (auto* var = e->as<ir::VarNode>())
        for (size_t d = 0; d < ev.kernel->thread_vars.size(); ++d)
            if (ev.kernel->thread_vars[d].get() == var) return d;
    ev.fail(DiagKind::TypeMismatch, span, {"`T.tvm_thread_allreduce` reduces over thread indices of the kernel (T.get_thread_binding(d))"});
}

Value thread_allreduce(Evaluator& ev, CallArgs& a) {
    // dtype="handle" types TVM's call node; the thread indices come as extra positional args.
    take_keyword(a, "dtype");
    ArgReader rd(ev, a, "T.tvm_thread_allreduce", {"size", "value", "cond", "out", "*"});
    require_kernel(ev, "T.tvm_thread_allreduce", a.span);
    if (!ev.kernel->reducer)
        ev.fail(DiagKind::UnsupportedConstruct, a.span,
                {"`T.tvm_thread_allreduce` outside `with T.attr(T.comm_reducer(...), \"reduce_scope\", ...)`", "; the combiner comes from there"});
    const auto& red = *static_cast<const ReducerObj*>(ev.kernel->reducer.get());
    if (ev.as_int(rd.require(0), rd.span(0), "size") != 1)
        ev.fail(DiagKind::UnsupportedConstruct, rd.span(0), {"`T.tvm_thread_allreduce` of several values", "; one value is reduced"});
    if (const Value& c = rd.require(2); ev.is_ir(c) || !ev.truthy(c, rd.span(2)))
        ev.fail(DiagKind::UnsupportedConstruct, rd.span(2), {"a condition on `T.tvm_thread_allreduce`", "; pass True"});
    ir::Expr value = ev.to_expr(rd.require(1), rd.span(1), "value");
    const ir::BufferLoadNode* out = nullptr;
    if (const Value& o = rd.require(3); o.kind == VK::Expr) out = o.as<ExprObj>()->e->as<ir::BufferLoadNode>();
    if (!out) ev.fail(DiagKind::TypeMismatch, rd.span(3), {"`T.tvm_thread_allreduce` writes its result to a buffer element such as `out[0]`"});
    std::vector<bool> reduced(ev.kernel->thread_vars.size(), false);
    if (rd.rest.empty()) ev.fail(DiagKind::TypeMismatch, a.span, {"`T.tvm_thread_allreduce` needs the thread indices it reduces over"});
    for (const auto& t : rd.rest) reduced[thread_axis(ev, t, a.span)] = true;

    const auto& vars = ev.kernel->thread_vars;
    const auto& ext = ev.kernel->thread_extents;
    const ir::DataType t = out->buffer->dtype;
    if (!(value->dtype == t)) value = ir::make_cast(t, value, a.span);
    int64_t slots = 1;
    for (int64_t e : ext) slots *= e;
    auto buf = std::make_shared<const ir::BufferNode>(unique_name(ev, "tp_allreduce"), t, std::vector<ir::Expr>{ir::int_imm(slots)},
                                                      ir::Scope::Shared, a.span);
    ev.stager.add_allocation(buf, nullptr, a.span);
    // Thread x is the fastest axis of the linear thread index.
    auto slot_of = [&](const std::vector<ir::Expr>& at) {
        ir::Expr s = ir::int_imm(0);
        for (size_t d = at.size(); d-- > 0;)
            s = ir::make_binary(ir::BinaryOp::Add, ir::make_binary(ir::BinaryOp::Mul, s, ir::int_imm(ext[d])), at[d]);
        return s;
    };
    std::vector<ir::Expr> mine(vars.begin(), vars.end()), other = mine;
    std::vector<ir::Var> loops;
    for (size_t d = 0; d < vars.size(); ++d)
        if (reduced[d]) {
            loops.push_back(std::make_shared<ir::VarNode>("tp_ar" + std::to_string(d), ir::DataType::int32(), ir::VarKind::Loop, a.span));
            other[d] = loops.back();
        }
    ev.stager.emit(std::make_shared<ir::BufferStoreNode>(buf, std::vector<ir::Expr>{slot_of(mine)}, value, a.span));
    // One barrier between the writes and the reads (insert_syncs would otherwise place it in
    // the fold loop, at its first read).
    ev.stager.emit(std::make_shared<ir::EvaluateNode>(ir::make_call("__syncthreads", {}, ir::DataType::void_(), a.span), a.span));
    ir::Expr init = ev.to_expr(red.identity, a.span, "identity");
    if (!(init->dtype == t)) init = ir::make_cast(t, init, a.span);
    ev.stager.emit(std::make_shared<ir::BufferStoreNode>(out->buffer, out->indices, init, a.span));
    CallArgs c;
    c.span = a.span;
    c.func_span = a.span;
    c.pos = {Value::expr(std::make_shared<ir::BufferLoadNode>(out->buffer, out->indices, a.span)),
             Value::expr(std::make_shared<ir::BufferLoadNode>(buf, std::vector<ir::Expr>{slot_of(other)}, a.span))};
    c.pos_spans = {a.span, a.span};
    ir::Expr folded = ev.to_expr(ev.call(red.combiner, c), a.span, "combiner result");
    if (!(folded->dtype == t)) folded = ir::make_cast(t, folded, a.span);
    ir::Stmt body = std::make_shared<ir::BufferStoreNode>(out->buffer, out->indices, folded, a.span);
    for (size_t i = loops.size(), d = vars.size(); i-- > 0;) {
        while (!reduced[--d]) {}
        body = std::make_shared<ir::ForNode>(loops[i], ir::int_imm(0), ir::int_imm(ext[d]), ir::ForKind::Serial, body, a.span);
    }
    ev.stager.emit(body);
    return Value::none();
}

}  // namespace

Flow exec_attr_with(Evaluator& ev, const WithScope& w, const Value& ctx, const std::shared_ptr<Scope>& sc) {
    auto* s = ctx.kind == VK::Opaque ? dynamic_cast<const AttrScopeObj*>(ctx.obj.get()) : nullptr;
    if (!s) return Flow::Normal;
    require_kernel(ev, "with T.attr", w.stmt.span);
    auto saved = ev.kernel->reducer;
    ev.kernel->reducer = s->reducer;
    Flow fl;
    try {
        fl = exec_with_body(ev, w, sc);
    } catch (...) {
        ev.kernel->reducer = saved;
        throw;
    }
    ev.kernel->reducer = saved;
    return fl;
}

bool is_attr_scope(const Value& v) { return v.kind == VK::Opaque && dynamic_cast<const AttrScopeObj*>(v.obj.get()) != nullptr; }

// T.tvm_warp_shuffle(mask, value, lane, width, warp_size): `value` of lane `lane` of the
// calling thread's segment of `width` lanes. Every lane of the warp takes part (the mask is
// TVM's and must be the full warp).
Value warp_shuffle(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.tvm_warp_shuffle", {"mask", "value", "lane", "width", "warp_size"});
    require_kernel(ev, "T.tvm_warp_shuffle", a.span);
    if (const Value& m = rd.require(0); ev.is_ir(m) || (ev.as_int(m, rd.span(0), "mask") & 0xffffffffLL) != 0xffffffffLL)
        ev.fail(DiagKind::UnsupportedConstruct, rd.span(0), {"a partial-warp mask on `T.tvm_warp_shuffle`", "; every lane takes part (0xFFFFFFFF)"});
    const int64_t warp = ev.as_int(rd.require(4), rd.span(4), "warp_size");
    const int64_t width = ev.as_int(rd.require(3), rd.span(3), "width");
    if (warp != 32 || width < 1 || width > 32 || (width & (width - 1)) != 0)
        ev.fail(DiagKind::TypeMismatch, rd.span(3), {"`T.tvm_warp_shuffle` needs warp_size 32 and a width that is a power of two up to 32"});
    ir::Expr v = ev.to_expr(rd.require(1), rd.span(1), "value");
    ir::Expr lane = ev.to_expr(rd.require(2), rd.span(2), "lane");
    if (!lane->dtype.is_int()) ev.fail(DiagKind::TypeMismatch, rd.span(2), {"the lane of `T.tvm_warp_shuffle` must be an integer"});
    lane = ir::make_cast(ir::DataType::int32(), lane, rd.span(2));
    return Value::expr(ir::make_call("warp_shuffle", {v, lane, ir::int_imm(width)}, v->dtype, a.span));
}

void register_tile_allreduce(Reg& r) {
    add(r, "tvm_warp_shuffle", "T.tvm_warp_shuffle(mask, value, lane, width, warp_size)",
        "value of lane `lane` within each segment of `width` lanes of the warp (__shfl_sync)", warp_shuffle);
    add(r, "comm_reducer", "T.comm_reducer(combiner, [identity])", "a reduction for T.tvm_thread_allreduce: combiner(x, y) and its identity",
        comm_reducer);
    add(r, "attr", "T.attr(T.comm_reducer(...), \"reduce_scope\", handle)", "the scope of a T.tvm_thread_allreduce (use with `with`)", attr);
    add(r, "tvm_thread_allreduce", "T.tvm_thread_allreduce(1, value, True, out[i], *thread_indices)",
        "combine value over the threads that differ only along the given thread indices; every one gets the result in out[i]", thread_allreduce);
    add(r, "evaluate", "T.evaluate(expr)", "run an expression for its effect", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.evaluate", {"value"});
        const Value& v = rd.require(0);
        if (v.is_none()) return Value::none();  // a staged call (T.tvm_thread_allreduce) has done its work
        require_kernel(ev, "T.evaluate", a.span);
        ev.stager.emit(std::make_shared<ir::EvaluateNode>(ev.to_expr(v, rd.span(0), "T.evaluate value"), a.span));
        return Value::none();
    });
}

}  // namespace tp::eval
