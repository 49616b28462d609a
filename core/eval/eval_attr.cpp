// Attribute access (module members, buffer .shape/.dtype, list/dict/str methods, enums),
// subscripts (buffer loads and regions, sequence indexing and slicing) and iteration.
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

int64_t norm_index(Evaluator& ev, int64_t i, size_t n, Span span) {
    if (i < 0) i += static_cast<int64_t>(n);
    if (i < 0 || i >= static_cast<int64_t>(n)) ev.fail(DiagKind::PythonException, span, {"IndexError: index out of range"});
    return i;
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
        case VK::Func: if (name == "__name__") return Value::str(v.as<FuncObj>()->name); return std::nullopt;
        case VK::Str: {
            std::string s = str_of(v);
            if (name == "format")
                return method("str.format", [s](Evaluator& ev, CallArgs& a) {
                    std::string out;
                    size_t next = 0;
                    for (size_t i = 0; i < s.size(); ++i) {
                        if (s[i] == '{' && i + 1 < s.size() && s[i + 1] == '{') { out += '{'; ++i; continue; }
                        if (s[i] == '}' && i + 1 < s.size() && s[i + 1] == '}') { out += '}'; ++i; continue; }
                        if (s[i] != '{') { out += s[i]; continue; }
                        size_t close = s.find('}', i);
                        if (close == std::string::npos) break;
                        std::string field = s.substr(i + 1, close - i - 1);
                        std::string key = field.substr(0, field.find(':'));
                        const Value* val = nullptr;
                        if (key.empty()) { if (next < a.pos.size()) val = &a.pos[next++]; }
                        else if (std::isdigit(static_cast<unsigned char>(key[0]))) { size_t k = std::stoul(key); if (k < a.pos.size()) val = &a.pos[k]; }
                        else for (const auto& [kn, kv] : a.kw) if (kn == key) val = &kv;
                        if (!val) ev.fail(DiagKind::PythonException, a.span, {"IndexError: missing value for `{" + key + "}`"});
                        out += to_str(*val);
                        i = close;
                    }
                    return Value::str(out);
                });
            if (name == "join")
                return method("str.join", [s](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "str.join", {"iterable"});
                    std::string out;
                    bool first = true;
                    for (const auto& x : ev.iterate(r.require(0), r.span(0))) {
                        if (!first) out += s;
                        first = false;
                        out += ev.as_str(x, r.span(0), "str.join item");
                    }
                    return Value::str(out);
                });
            if (name == "split")
                return method("str.split", [s](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "str.split", {"sep"});
                    std::vector<Value> parts;
                    const Value* sepv = r.get(0);
                    if (!sepv || sepv->is_none()) {
                        size_t i = 0;
                        while (i < s.size()) {
                            while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
                            size_t j = i;
                            while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
                            if (j > i) parts.push_back(Value::str(s.substr(i, j - i)));
                            i = j;
                        }
                    } else {
                        std::string sep = ev.as_str(*sepv, r.span(0), "sep");
                        size_t i = 0, k;
                        while (!sep.empty() && (k = s.find(sep, i)) != std::string::npos) { parts.push_back(Value::str(s.substr(i, k - i))); i = k + sep.size(); }
                        parts.push_back(Value::str(s.substr(i)));
                    }
                    return Value::list(std::move(parts));
                });
            if (name == "strip")
                return method("str.strip", [s](Evaluator&, CallArgs&) {
                    size_t b = s.find_first_not_of(" \t\n"), e = s.find_last_not_of(" \t\n");
                    return Value::str(b == std::string::npos ? "" : s.substr(b, e - b + 1));
                });
            if (name == "upper" || name == "lower")
                return method("str." + name, [s, up = name == "upper"](Evaluator&, CallArgs&) {
                    std::string o = s;
                    for (auto& c : o) c = static_cast<char>(up ? std::toupper(static_cast<unsigned char>(c)) : std::tolower(static_cast<unsigned char>(c)));
                    return Value::str(o);
                });
            if (name == "startswith" || name == "endswith")
                return method("str." + name, [s, start = name == "startswith"](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, start ? "str.startswith" : "str.endswith", {"prefix"});
                    std::string p = ev.as_str(r.require(0), r.span(0), "prefix");
                    bool ok = p.size() <= s.size() && (start ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
                    return Value::boolean(ok);
                });
            if (name == "replace")
                return method("str.replace", [s](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "str.replace", {"old", "new"});
                    std::string o = ev.as_str(r.require(0), r.span(0), "old"), n = ev.as_str(r.require(1), r.span(1), "new"), out;
                    size_t i = 0, k;
                    while (!o.empty() && (k = s.find(o, i)) != std::string::npos) { out += s.substr(i, k - i) + n; i = k + o.size(); }
                    return Value::str(out + s.substr(i));
                });
            return std::nullopt;
        }
        case VK::List: case VK::Tuple: {
            Value self = v;
            if (name == "index" || name == "count")
                return method(name, [self, count = name == "count"](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, count ? "count" : "index", {"value"});
                    const Value& x = r.require(0);
                    int64_t n = 0;
                    const auto& items = items_of(self);
                    for (size_t i = 0; i < items.size(); ++i) {
                        if (!values_equal(items[i], x)) continue;
                        if (!count) return Value::integer(static_cast<int64_t>(i));
                        ++n;
                    }
                    if (!count) ev.fail(DiagKind::PythonException, a.span, {"ValueError: " + repr(x) + " is not in list"});
                    return Value::integer(n);
                });
            if (v.kind == VK::Tuple) return std::nullopt;
            if (name == "append")
                return method("list.append", [self](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "list.append", {"value"});
                    items_of(self).push_back(r.require(0));
                    return Value::none();
                });
            if (name == "extend")
                return method("list.extend", [self](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "list.extend", {"iterable"});
                    auto add = ev.iterate(r.require(0), r.span(0));
                    items_of(self).insert(items_of(self).end(), add.begin(), add.end());
                    return Value::none();
                });
            if (name == "insert")
                return method("list.insert", [self](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "list.insert", {"index", "value"});
                    auto& items = items_of(self);
                    int64_t i = ev.as_int(r.require(0), r.span(0), "index");
                    if (i < 0) i = std::max<int64_t>(0, i + static_cast<int64_t>(items.size()));
                    i = std::min<int64_t>(i, static_cast<int64_t>(items.size()));
                    items.insert(items.begin() + i, r.require(1));
                    return Value::none();
                });
            if (name == "pop")
                return method("list.pop", [self](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "list.pop", {"index"});
                    auto& items = items_of(self);
                    if (items.empty()) ev.fail(DiagKind::PythonException, a.span, {"IndexError: pop from empty list"});
                    int64_t i = norm_index(ev, r.get(0) ? ev.as_int(*r.get(0), r.span(0), "index") : -1, items.size(), a.span);
                    Value x = items[static_cast<size_t>(i)];
                    items.erase(items.begin() + i);
                    return x;
                });
            if (name == "reverse")
                return method("list.reverse", [self](Evaluator&, CallArgs&) {
                    std::reverse(items_of(self).begin(), items_of(self).end());
                    return Value::none();
                });
            if (name == "copy") return method("list.copy", [self](Evaluator&, CallArgs&) { return Value::list(items_of(self)); });
            return std::nullopt;
        }
        case VK::Dict: {
            auto d = std::static_pointer_cast<DictObj>(v.obj);
            if (name == "items" || name == "keys" || name == "values")
                return method("dict." + name, [d, name](Evaluator&, CallArgs&) {
                    std::vector<Value> out;
                    for (const auto& [k, x] : d->items)
                        out.push_back(name == "items" ? Value::tuple({k, x}) : name == "keys" ? k : x);
                    return Value::list(std::move(out));
                });
            if (name == "get" || name == "pop" || name == "setdefault")
                return method("dict." + name, [d, name](Evaluator& ev, CallArgs& a) {
                    ArgReader r(ev, a, "dict." + name, {"key", "default"});
                    const Value& k = r.require(0);
                    for (size_t i = 0; i < d->items.size(); ++i) {
                        if (!values_equal(d->items[i].first, k)) continue;
                        Value x = d->items[i].second;
                        if (name == "pop") d->items.erase(d->items.begin() + static_cast<long>(i));
                        return x;
                    }
                    if (name == "pop" && !r.get(1)) ev.fail(DiagKind::PythonException, a.span, {"KeyError: " + repr(k)});
                    Value dflt = r.get_or(1, Value::none());
                    if (name == "setdefault") d->items.emplace_back(k, dflt);
                    return dflt;
                });
            if (name == "update")
                return method("dict.update", [d](Evaluator& ev, CallArgs& a) {
                    auto put = [&](const Value& k, const Value& x) {
                        for (auto& e : d->items)
                            if (values_equal(e.first, k)) { e.second = x; return; }
                        d->items.emplace_back(k, x);
                    };
                    for (const auto& p : a.pos) {
                        if (p.kind != VK::Dict) ev.fail(DiagKind::TypeMismatch, a.span, {"dict.update expects a dict, got " + type_name(p)});
                        for (const auto& [k, x] : p.as<DictObj>()->items) put(k, x);
                    }
                    for (const auto& [k, x] : a.kw) put(Value::str(k), x);
                    return Value::none();
                });
            if (name == "copy") return method("dict.copy", [d](Evaluator&, CallArgs&) { return Value::make(VK::Dict, std::make_shared<DictObj>(*d)); });
            return std::nullopt;
        }
        default: return std::nullopt;
    }
}

Value Evaluator::getattr(const Value& v, const std::string& name, Span span) {
    if (auto r = try_getattr(v, name, span)) return *r;
    if (v.kind == VK::Module && v.as<ModuleObj>()->mod == ModuleKind::TileLang) {
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
                return Value::expr(std::make_shared<ir::BufferLoadNode>(b, std::move(ie), span));
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
