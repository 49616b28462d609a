// Layouts at trace time: `T.Layout(shape, fn)` (fn traced once over symbolic indices into an
// index map) and `T.annotate_layout({buffer: layout})`. A layout on a shared or fragment buffer
// only changes where the block keeps its own data, so it is recorded and the data stays
// row-major; a T.Layout on a global tensor is visible to other kernels, so the kernel's body is
// rewritten through it when the kernel closes (transform/global_layout).
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

// What T.Layout returns: an opaque host object to everything but T.annotate_layout.
struct LayoutObj : OpaqueObj {
    transform::IndexMap map;
};

Value make_layout(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.Layout", {"shape", "forward_fn"});
    std::vector<Value> dims = ev.iterate(rd.require(0), rd.span(0));
    auto obj = std::make_shared<LayoutObj>();
    obj->what = "`T.Layout`";
    obj->map.span = a.span;
    CallArgs call;
    call.span = a.span;
    call.func_span = rd.span(1);
    // The index vars take the lambda's parameter names, so messages quote the user's formula.
    std::vector<std::string> names;
    if (rd.require(1).kind == VK::Func)
        for (const auto& p : rd.require(1).as<FuncObj>()->args->args) names.push_back(p.arg);
    for (size_t i = 0; i < dims.size(); ++i) {
        ev.to_expr(dims[i], rd.span(0), "layout extent");
        std::string name = i < names.size() ? names[i] : "i" + std::to_string(i);
        auto v = std::make_shared<ir::VarNode>(name, ir::DataType::int32(), ir::VarKind::Plain, a.span);
        obj->map.vars.push_back(v);
        call.pos.push_back(Value::expr(v));
        call.pos_spans.push_back(rd.span(1));
    }
    Value out = ev.call(rd.require(1), call);
    // `lambda *args: args` returns a tuple; a single output may come back bare.
    std::vector<Value> outs = out.is_seq() ? ev.iterate(out, rd.span(1)) : std::vector<Value>{out};
    for (const auto& o : outs) obj->map.outputs.push_back(ev.to_expr(o, rd.span(1), "layout output"));
    return Value::make(VK::Opaque, obj);
}

Value annotate_layout(Evaluator& ev, CallArgs& a) {
    ArgReader rd(ev, a, "T.annotate_layout", {"layout_map"});
    require_kernel(ev, "T.annotate_layout", a.span);
    const Value& m = rd.require(0);
    if (m.kind != VK::Dict) ev.fail(DiagKind::TypeMismatch, rd.span(0), {"`T.annotate_layout` expects a dict {buffer: layout}, got " + type_name(m)});
    std::vector<std::pair<ir::Buffer, std::string>> l;
    for (const auto& [k, v] : m.as<DictObj>()->items) {
        ir::Buffer b = ev.as_buffer(k, rd.span(0), "T.annotate_layout");
        auto* layout = v.kind == VK::Opaque ? dynamic_cast<LayoutObj*>(v.obj.get()) : nullptr;
        if (!layout) {
            l.emplace_back(b, to_str(v));
            continue;
        }
        if (b->scope == ir::Scope::Global) {
            ev.kernel->global_layouts.push_back({b, layout->map});
            continue;
        }
        l.emplace_back(b, "index_map");
    }
    if (!l.empty()) ev.stager.emit(std::make_shared<ir::LayoutAnnotationOpNode>(std::move(l), a.span));
    return Value::none();
}

}  // namespace

void register_tile_layout(std::vector<TileBuiltin>& r) {
    r.push_back({{"Layout", "T.Layout(shape, forward_fn)", "a memory layout: element idx of a buffer of `shape` lives at forward_fn(*idx)",
                  "tile op"},
                 make_layout});
    r.push_back({{"annotate_layout", "T.annotate_layout({buffer: layout})",
                  "attach a memory layout to buffers (a T.Layout on a global tensor remaps every access of it)", "tile op"},
                 annotate_layout});
}

}  // namespace tp::eval
