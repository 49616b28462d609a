// Attribute access (module members, buffer .shape/.dtype, IR value and dtype attributes,
// enums), subscripts (buffer loads and regions, sequence indexing and slicing) and iteration.
// The str / list / dict methods that attribute access hands out live in eval_methods.cpp.
#include <algorithm>
#include <map>

#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

Value method(const std::string& name, std::function<Value(Evaluator&, CallArgs&)> fn) { return make_builtin(name, std::move(fn)); }

Value shape_value(const ir::Buffer& b) {
    std::vector<Value> dims;
    for (const auto& d : b->shape) {
        if (auto c = ir::as_const_int(d)) dims.push_back(Value::integer(*c));
        else dims.push_back(Value::expr(d));
    }
    return Value::list(std::move(dims));
}

// Python slice semantics on a sequence of length n.
std::vector<size_t> slice_indices(Evaluator& ev, const SliceObj& s, size_t n, Span span) {
    int64_t len = static_cast<int64_t>(n);
    int64_t step = s.step.is_none() ? 1 : ev.as_int(s.step, span, "slice step");
    if (step == 0) ev.fail(DiagKind::PythonException, span, {"ValueError: slice step cannot be zero"});
    auto clamp = [&](const Value& v, int64_t dflt) {
        if (v.is_none()) return dflt;
        int64_t x = ev.as_int(v, span, "slice bound");
        if (x < 0) x += len;
        if (step > 0) return std::clamp<int64_t>(x, 0, len);
        return std::clamp<int64_t>(x, -1, len - 1);
    };
    int64_t start = clamp(s.lower, step > 0 ? 0 : len - 1), stop = clamp(s.upper, step > 0 ? len : -1);
    std::vector<size_t> out;
    for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) out.push_back(static_cast<size_t>(i));
    return out;
}

// Linear form of an index expression: sum of coeff * atom plus a constant, where atoms
// are the non-affine sub-expressions keyed by their printed text.
struct Linear {
    std::map<std::string, std::pair<int64_t, ir::Expr>> terms;
    int64_t constant = 0;
};

bool linearize(const ir::Expr& e, int64_t scale, Linear& out) {
    if (auto c = ir::as_const_int(e)) {
        out.constant += scale * *c;
        return true;
    }
    if (auto* b = e->as<ir::BinaryNode>()) {
        if (b->op == ir::BinaryOp::Add) return linearize(b->a, scale, out) && linearize(b->b, scale, out);
        if (b->op == ir::BinaryOp::Sub) return linearize(b->a, scale, out) && linearize(b->b, -scale, out);
        if (b->op == ir::BinaryOp::Mul) {
            if (auto c = ir::as_const_int(b->b)) return linearize(b->a, scale * *c, out);
            if (auto c = ir::as_const_int(b->a)) return linearize(b->b, scale * *c, out);
        }
    }
    if (!e->dtype.is_int()) return false;
    auto& t = out.terms[ir::print(e)];
    t.first += scale;
    t.second = e;
    return true;
}

// hi - lo, reduced to a constant when the symbolic parts cancel (`(bx + 1) * 64 - bx * 64`).
ir::Expr affine_difference(const ir::Expr& hi, const ir::Expr& lo, Span span) {
    Linear l;
    if (linearize(hi, 1, l) && linearize(lo, -1, l)) {
        bool cancels = true;
        for (const auto& [k, t] : l.terms) cancels &= t.first == 0;
        if (cancels) return ir::int_imm(l.constant, ir::promote(hi->dtype, lo->dtype), span);
    }
    return ir::make_binary(ir::BinaryOp::Sub, hi, lo, span);
}

}  // namespace

std::optional<Value> Evaluator::try_getattr(const Value& v, const std::string& name, Span span) {
    switch (v.kind) {
        case VK::Module: return module_attr(*v.as<ModuleObj>(), name, span);
        case VK::Opaque: {
            if (auto shim = host_attr_shim(*this, v.as<OpaqueObj>()->what, name)) return shim;
            if (auto t = host_tensor_attr(v, name)) return t;
            auto o = std::make_shared<OpaqueObj>();
            o->what = v.as<OpaqueObj>()->what + "." + name;
            return Value::make(VK::Opaque, o);
        }
        case VK::Buffer: {
            const ir::Buffer& b = v.as<BufferObj>()->b;
            if (name == "shape") return shape_value(b);
            if (name == "dtype") return Value::dtype(b->dtype);
            if (name == "name") return Value::str(b->name);
            if (name == "scope") return Value::str(ir::scope_name(b->scope));
            if (name == "ndim") return Value::integer(static_cast<int64_t>(b->shape.size()));
            if (name == "data") return v;  // its storage, which `T.Tensor(shape, dtype, buf.data)` views
            return std::nullopt;
        }
        case VK::Expr: {
            ir::Expr e = v.as<ExprObj>()->e;
            if (name == "dtype") return Value::dtype(e->dtype);
            if (name == "astype")
                return method("astype", [e](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "astype", {"dtype"});
                    return Value::expr(ir::make_cast(ev.as_dtype(r.require(0), r.span(0)), e, a.span));
                });
            if (name == "value") {
                if (auto c = ir::as_const_int(e)) return Value::integer(*c);
                if (auto c = ir::as_const_float(e)) return Value::floating(*c);
            }
            if (name == "name" && e->kind == ir::NodeKind::Var) return Value::str(static_cast<const ir::VarNode&>(*e).name);
            return std::nullopt;
        }
        case VK::DType: {
            if (name == "bits") return Value::integer(v.dt.bits);
            if (name == "name") return Value::str(v.dt.name());
            if (name == "lanes") return Value::integer(v.dt.lanes);
            return std::nullopt;
        }
        case VK::Enum: {
            auto* e = v.as<EnumObj>();
            if (!e->name.empty()) {
                if (name == "name") return Value::str(e->name);
                return std::nullopt;
            }
            static const std::vector<std::string> policies = {"Square", "FullRow", "FullCol"};
            if (e->owner == "GemmWarpPolicy" && std::find(policies.begin(), policies.end(), name) == policies.end()) return std::nullopt;
            auto r = std::make_shared<EnumObj>();
            r->owner = e->owner;
            r->name = name;
            return Value::make(VK::Enum, r);
        }
        case VK::Int:
            if (name == "bit_length")  // Python's int.bit_length(): bits of |x|, 0 for 0
                return method("int.bit_length", [x = v.i](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "int.bit_length", {});
                    uint64_t mag = x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
                    int64_t bits = 0;
                    while (bits < 64 && (mag >> bits) != 0) ++bits;
                    return Value::integer(bits);
                });
            return std::nullopt;
        case VK::Func: if (name == "__name__") return Value::str(v.as<FuncObj>()->name); return std::nullopt;
        case VK::Str: return str_method(str_of(v), name);
        case VK::List: case VK::Tuple: return seq_method(v, name);
        case VK::Dict: return dict_method(v, name);
        default: return std::nullopt;
    }
}

Value Evaluator::getattr(const Value& v, const std::string& name, Span span) {
    if (auto r = try_getattr(v, name, span)) return *r;
    if (v.kind == VK::Module && v.as<ModuleObj>()->mod == ModuleKind::TileLang) {
        // Tensor memory and tcgen05 MMAs exist only on Blackwell: say so rather than "unknown".
        if (name.find("tmem") != std::string::npos || name.rfind("tcgen05", 0) == 0)
            fail(DiagKind::FeatureNeedsTarget, span, {"`T." + name + "`", "sm_100a (Blackwell tensor memory and tcgen05)", target});
        std::string m = closest_match(name, tile_names());
        fail(DiagKind::UnknownTileFunction, span, {name, m.empty() ? "" : "; did you mean `T." + m + "`"});
    }
    std::vector<std::string> cands;
    if (v.kind == VK::Buffer) cands = {"shape", "dtype", "name", "scope", "ndim"};
    else if (v.kind == VK::Enum && v.as<EnumObj>()->owner == "GemmWarpPolicy") cands = {"Square", "FullRow", "FullCol"};
    else if (v.kind == VK::List) cands = {"append", "extend", "insert", "pop", "index", "count", "reverse", "copy"};
    else if (v.kind == VK::Dict) cands = {"items", "keys", "values", "get", "pop", "setdefault", "update", "copy"};
    std::string m = closest_match(name, cands);
    std::string what = type_name(v);
    if (v.kind == VK::Enum) what = v.as<EnumObj>()->name.empty() ? "`T." + v.as<EnumObj>()->owner + "`" : "`" + repr(v) + "`";
    fail(DiagKind::UnknownAttribute, span, {what, name, m.empty() ? "" : "; did you mean `" + m + "`"});
}

Value Evaluator::subscript(const Value& v, const Value& idx, Span span, Span idx_span) {
    switch (v.kind) {
        case VK::Buffer: {
            const ir::Buffer& b = v.as<BufferObj>()->b;
            std::vector<Value> idxs = idx.kind == VK::Tuple ? items_of(idx) : std::vector<Value>{idx};
            if (idxs.size() != b->shape.size())
                fail(DiagKind::IndexCountMismatch, idx_span, {b->name, std::to_string(b->shape.size()), std::to_string(idxs.size())});
            bool any_slice = std::any_of(idxs.begin(), idxs.end(), [](const Value& x) { return x.kind == VK::Slice; });
            if (!any_slice) {
                std::vector<ir::Expr> ie;
                for (const auto& x : idxs) {
                    ir::Expr e = to_expr(x, idx_span, "index");
                    if (!e->dtype.is_int()) fail(DiagKind::TypeMismatch, idx_span, {"buffer indices must be integers, got " + e->dtype.name()});
                    ie.push_back(e);
                }
                ir::Buffer real = b;
                std::vector<ir::Expr> at = ie;
                view_element(*this, real, ie);
                ir::Expr load = std::make_shared<ir::BufferLoadNode>(real, std::move(ie), span);
                if (real != b) view_points[load.get()] = {load, b, std::move(at)};
                return Value::expr(load);
            }
            auto r = std::make_shared<RegionObj>();
            r->buffer = b;
            for (size_t d = 0; d < idxs.size(); ++d) {
                const Value& x = idxs[d];
                if (x.kind != VK::Slice) {
                    // Inside a sliced region a scalar index selects one element of that dim.
                    r->dims.push_back({to_expr(x, idx_span, "index"), ir::int_imm(1)});
                    continue;
                }
                auto* s = x.as<SliceObj>();
                if (!s->step.is_none() && as_int(s->step, idx_span, "slice step") != 1)
                    fail(DiagKind::UnsupportedConstruct, idx_span, {"strided buffer slices", "; only step 1 is supported"});
                ir::Expr lo = s->lower.is_none() ? ir::int_imm(0) : to_expr(s->lower, idx_span, "slice start");
                ir::Expr hi = s->upper.is_none() ? b->shape[d] : to_expr(s->upper, idx_span, "slice stop");
                ir::Expr ext = affine_difference(hi, lo, idx_span);
                if (auto c = ir::as_const_int(ext); c && *c <= 0)
                    fail(DiagKind::ShapeMismatch, idx_span, {"slice of `" + b->name + "` has extent " + std::to_string(*c)});
                r->dims.push_back({lo, ext});
            }
            return Value::make(VK::Region, r);
        }
        case VK::List: case VK::Tuple: case VK::Str: case VK::Range: {
            std::vector<Value> items = v.kind == VK::List || v.kind == VK::Tuple ? items_of(v) : iterate(v, span);
            if (idx.kind == VK::Slice) {
                std::vector<Value> out;
                for (size_t i : slice_indices(*this, *idx.as<SliceObj>(), items.size(), idx_span)) out.push_back(items[i]);
                if (v.kind == VK::Str) {
                    std::string s;
                    for (const auto& c : out) s += str_of(c);
                    return Value::str(s);
                }
                return v.kind == VK::Tuple ? Value::tuple(std::move(out)) : Value::list(std::move(out));
            }
            if (is_ir(idx) && !ir::as_const_int(to_expr(idx, idx_span)))
                fail(DiagKind::NotConstant, idx_span, {"index into a Python " + std::string(vk_name(v.kind))});
            int64_t i = norm_index(*this, as_int(idx, idx_span, "index"), items.size(), idx_span);
            return items[static_cast<size_t>(i)];
        }
        case VK::Dict:
            for (const auto& [k, x] : v.as<DictObj>()->items)
                if (values_equal(k, idx)) return x;
            fail(DiagKind::PythonException, span, {"KeyError: " + repr(idx)});
        case VK::TypeObj: {
            // T.Tensor[(M, K), dtype] and typing generics such as List[int].
            auto* t = v.as<TensorTypeObj>();
            if (!t->is_tensor) return v;
            auto r = std::make_shared<TensorTypeObj>(*t);
            std::vector<Value> parts = idx.kind == VK::Tuple ? items_of(idx) : std::vector<Value>{idx};
            if (parts.size() == 2 && parts[0].is_seq()) {
                r->shape = items_of(parts[0]);
                r->dtype = as_dtype(parts[1], idx_span);
            } else {
                r->shape = parts;
            }
            return Value::make(VK::TypeObj, r);
        }
        case VK::Opaque: return v;
        case VK::Builtin: {
            // T.Tensor[shape, dtype] / T.Buffer[...] annotations: the same as calling them.
            auto* b = v.as<BuiltinObj>();
            if (b->name == "T.Tensor" || b->name == "T.Buffer") {
                CallArgs args;
                args.pos = idx.kind == VK::Tuple ? items_of(idx) : std::vector<Value>{idx};
                args.pos_spans.assign(args.pos.size(), idx_span);
                args.span = span;
                args.func_span = span;
                return b->fn(*this, args);
            }
            fail(DiagKind::TypeMismatch, span, {type_name(v) + " is not subscriptable"});
        }
        default:
            fail(DiagKind::TypeMismatch, span, {type_name(v) + " is not subscriptable"});
    }
}

std::vector<Value> Evaluator::iterate(const Value& v, Span span) {
    switch (v.kind) {
        case VK::Tuple: case VK::List: return items_of(v);
        case VK::Str: {
            std::vector<Value> out;
            for (char c : str_of(v)) out.push_back(Value::str(std::string(1, c)));
            return out;
        }
        case VK::DType: {  // TileLang's dtype is a str: `"".join(c for c in dtype if c.isdigit())`
            std::vector<Value> out;
            for (char c : v.dt.name()) out.push_back(Value::str(std::string(1, c)));
            return out;
        }
        case VK::Dict: {
            std::vector<Value> out;
            for (const auto& kv : v.as<DictObj>()->items) out.push_back(kv.first);
            return out;
        }
        case VK::Range: {
            auto* r = v.as<RangeObj>();
            int64_t a = as_int(r->start, span, "range start"), b = as_int(r->stop, span, "range stop"), s = as_int(r->step, span, "range step");
            if (s == 0) fail(DiagKind::PythonException, span, {"ValueError: range() arg 3 must not be zero"});
            int64_t n = s > 0 ? (b > a ? (b - a + s - 1) / s : 0) : (a > b ? (a - b - s - 1) / -s : 0);
            if (n > 10000000) fail(DiagKind::UnsupportedConstruct, span, {"range", "; a trace-time range of more than 10000000 items"});
            std::vector<Value> out;
            out.reserve(static_cast<size_t>(n));
            for (int64_t k = 0; k < n; ++k) out.push_back(Value::integer(a + k * s));
            return out;
        }
        case VK::LoopSpec:
            fail(DiagKind::UnsupportedConstruct, span, {"iterating a kernel loop range", " outside a `for` statement"});
        default:
            if (is_ir(v)) fail(DiagKind::NotConstant, span, {"iteration over " + type_name(v)});
            fail(DiagKind::TypeMismatch, span, {type_name(v) + " is not iterable"});
    }
}

}  // namespace tp::eval
