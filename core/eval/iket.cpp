// `tilelang.tools.cuda.iket`: TileLang's in-kernel event tracing (iket.mark, iket.range as a
// `with` item or as range_push / range_pop, iket.payload). Each event is staged as a void
// `iket_event(event_id, kind[, payload])` call; the CUDA code generator emits it as a
// performance-monitor event (tp_iket.cuh) and the CPU runs leave memory untouched by it, as
// the GPU's are. Event ids follow TileLang's frontend: one per (kind, name) of the kernel
// function, counted from 1, skipping 31, the id every range end carries.
#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

constexpr int64_t kRangeEndId = 31;
constexpr size_t kMaxNameBytes = 32;  // MAX_EVENT_NAME_BYTES of TileLang's iket metadata
enum EventKind : int64_t { Mark = 0, RangeStart = 1, RangeEnd = 2 };

// iket.payload(expr, dtype=None): a scalar recorded with an event.
struct IketPayloadObj : OpaqueObj {
    Value value;
    std::string dtype;  // int32, uint32 or float32
    Span span;
};

// iket.range(name, payload=None), consumed by `with`.
struct IketRangeObj : OpaqueObj {
    std::string name;
    Value payload;  // None or an IketPayloadObj
    Span span;
};

const IketPayloadObj* as_payload(const Value& v) { return v.kind == VK::Opaque ? dynamic_cast<const IketPayloadObj*>(v.obj.get()) : nullptr; }

[[noreturn]] void py_error(Evaluator& ev, Span span, const std::string& what) { ev.fail(DiagKind::PythonException, span, {what}); }

// TileLang accepts int / uint / float as aliases and records only these three types.
std::string payload_dtype(Evaluator& ev, const Value* given, Span gspan, const Value& v, Span vspan) {
    std::string d;
    if (given && !given->is_none()) {
        d = given->kind == VK::DType ? given->dt.name() : ev.as_str(*given, gspan, "dtype");
    } else if (v.kind == VK::Bool) {
        d = "uint32";
    } else if (v.kind == VK::Int) {
        d = "int32";
    } else if (v.kind == VK::Float) {
        d = "float32";
    } else {
        d = ev.to_expr(v, vspan, "iket payload")->dtype.name();
    }
    for (auto& c : d) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (d == "int") d = "int32";
    if (d == "uint") d = "uint32";
    if (d == "float") d = "float32";
    if (d != "int32" && d != "uint32" && d != "float32")
        py_error(ev, given ? gspan : vspan, "ValueError: Unsupported IKET payload dtype: '" + d + "'");
    return d;
}

Value make_payload(Evaluator& ev, const Value& v, Span vspan, const Value* dtype, Span dspan) {
    auto p = std::make_shared<IketPayloadObj>();
    p->what = "iket payload";
    p->value = v;
    p->span = vspan;
    p->dtype = payload_dtype(ev, dtype, dspan, v, vspan);
    return Value::make(VK::Opaque, p);
}

// The event id of (kind, name) in this kernel function, registered on first use with its
// payload type; a later use with another payload type is TileLang's ValueError.
int64_t event_id(Evaluator& ev, const std::string& kind, const std::string& name, const std::string& payload_type, Span span) {
    if (name.empty()) py_error(ev, span, "ValueError: IKET event name must be a non-empty string");
    if (name.size() > kMaxNameBytes)
        py_error(ev, span, "ValueError: IKET event name must be at most " + std::to_string(kMaxNameBytes) + " UTF-8 bytes: '" + name + "'");
    auto& events = ev.kernel->iket_events;
    auto key = std::make_pair(kind, name);
    if (auto it = events.find(key); it != events.end()) {
        if (it->second.second != payload_type)
            py_error(ev, span,
                     "ValueError: IKET event '" + name + "' was first registered with payload type '" + it->second.second +
                         "', but is now used with '" + payload_type + "'");
        return it->second.first;
    }
    int64_t id = static_cast<int64_t>(events.size()) + 1;
    if (id >= kRangeEndId) ++id;
    events.emplace(key, std::make_pair(id, payload_type));
    return id;
}

void emit_event(Evaluator& ev, int64_t id, EventKind kind, const Value& payload, Span span) {
    std::vector<ir::Expr> args = {ir::int_imm(id), ir::int_imm(kind)};
    if (const auto* p = as_payload(payload)) {
        ir::Expr e = ev.to_expr(p->value, p->span, "iket payload");
        auto t = *ir::DataType::parse(p->dtype);
        if (!(e->dtype == t)) e = ir::make_cast(t, e, p->span);
        args.push_back(e);
    }
    ev.stager.emit(std::make_shared<ir::EvaluateNode>(ir::make_call("iket_event", args, ir::DataType::void_(), span), span));
}

// mark / range_push: the payload argument may be a payload object or a bare value.
Value payload_arg(Evaluator& ev, const Value* v, Span span) {
    if (!v || v->is_none() || as_payload(*v)) return v ? *v : Value::none();
    return make_payload(ev, *v, span, nullptr, span);
}

std::string payload_type(const Value& p) { return as_payload(p) ? as_payload(p)->dtype : "NoPayload"; }

void range_push(Evaluator& ev, const std::string& name, const Value& payload, Span span) {
    require_kernel(ev, "iket.range_push", span);
    int64_t id = event_id(ev, "range", name, payload_type(payload), span);
    ev.kernel->iket_ranges.push_back(name);
    emit_event(ev, id, RangeStart, payload, span);
}

void range_pop(Evaluator& ev, const std::string* name, Span span) {
    require_kernel(ev, "iket.range_pop", span);
    auto& stack = ev.kernel->iket_ranges;
    if (stack.empty()) py_error(ev, span, "RuntimeError: iket.range_pop() called without a matching iket.range_push()");
    std::string started = stack.back();
    stack.pop_back();
    if (name && *name != started) py_error(ev, span, "RuntimeError: iket.range_pop('" + *name + "') does not match active range '" + started + "'");
    emit_event(ev, kRangeEndId, RangeEnd, Value::none(), span);
}

}  // namespace

std::optional<Value> call_iket(Evaluator& ev, const std::string& what, CallArgs& a) {
    static const std::string prefix = "tilelang.tools.cuda.iket.";
    if (what.rfind(prefix, 0) != 0) return std::nullopt;
    const std::string fn = what.substr(prefix.size());
    if (fn == "payload") {
        ArgReader rd(ev, a, "iket.payload", {"expr", "dtype"});
        return make_payload(ev, rd.require(0), rd.span(0), rd.get(1), rd.get(1) ? rd.span(1) : a.span);
    }
    if (fn == "mark") {
        ArgReader rd(ev, a, "iket.mark", {"name", "payload"});
        require_kernel(ev, "iket.mark", a.span);
        std::string name = ev.as_str(rd.require(0), rd.span(0), "name");
        Value payload = payload_arg(ev, rd.get(1), rd.get(1) ? rd.span(1) : a.span);
        emit_event(ev, event_id(ev, "mark", name, payload_type(payload), rd.span(0)), Mark, payload, a.span);
        return Value::none();
    }
    if (fn == "range") {
        ArgReader rd(ev, a, "iket.range", {"name", "payload"});
        auto r = std::make_shared<IketRangeObj>();
        r->what = "iket.range scope";
        r->name = ev.as_str(rd.require(0), rd.span(0), "name");
        r->payload = payload_arg(ev, rd.get(1), rd.get(1) ? rd.span(1) : a.span);
        r->span = a.span;
        return Value::make(VK::Opaque, r);
    }
    if (fn == "range_push" || fn == "range_start") {
        ArgReader rd(ev, a, "iket." + fn, {"name", "payload"});
        range_push(ev, ev.as_str(rd.require(0), rd.span(0), "name"), payload_arg(ev, rd.get(1), rd.get(1) ? rd.span(1) : a.span), a.span);
        return Value::none();
    }
    if (fn == "range_pop" || fn == "range_end") {
        ArgReader rd(ev, a, "iket." + fn, {"name"});
        std::string name;
        const Value* n = rd.get(0);
        if (n && !n->is_none()) name = ev.as_str(*n, rd.span(0), "name");
        range_pop(ev, n && !n->is_none() ? &name : nullptr, a.span);
        return Value::none();
    }
    return std::nullopt;
}

bool is_iket_range(const Value& v) { return v.kind == VK::Opaque && dynamic_cast<const IketRangeObj*>(v.obj.get()) != nullptr; }

Flow exec_iket_range_with(Evaluator& ev, const WithScope& w, const Value& ctx, const std::shared_ptr<Scope>& sc) {
    const auto& r = *static_cast<const IketRangeObj*>(ctx.obj.get());
    if (w.item().optional_vars) ev.fail(DiagKind::UnsupportedConstruct, w.item().optional_vars->span, {"with iket.range(...) as", ""});
    range_push(ev, r.name, r.payload, r.span);
    Flow fl = exec_with_body(ev, w, sc);
    // The range ends where Python's __exit__ runs: after the body, however it left.
    range_pop(ev, &r.name, r.span);
    return fl;
}

}  // namespace tp::eval
