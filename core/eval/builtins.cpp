// Python builtins available at trace time: len, range, min/max (IR Min/Max on IR values),
// int/float/bool/str, containers, zip/enumerate/sorted/reversed, sum/any/all, isinstance,
// getattr/hasattr, round/divmod/pow, print (ignored) and the common exception classes.
#include <algorithm>
#include <cmath>

#include "eval/interp.h"

namespace tp::eval {

namespace {

using Reg = std::unordered_map<std::string, Value>;

void def(Reg& r, const std::string& name, BuiltinFn fn) { r[name] = make_builtin(name, std::move(fn)); }

Value minmax(Evaluator& ev, CallArgs& a, bool is_max) {
    const char* name = is_max ? "max" : "min";
    std::vector<Value> items;
    const Value* key = nullptr;
    const Value* dflt = nullptr;
    for (const auto& [k, v] : a.kw) {
        if (k == "key") key = &v;
        else if (k == "default") dflt = &v;
        else ev.fail(DiagKind::UnknownKeyword, a.span, {name, k, ""});
    }
    if (a.pos.size() == 1) items = ev.iterate(a.pos[0], a.pos_spans[0]);
    else items = a.pos;
    if (items.empty()) {
        if (dflt) return *dflt;
        ev.fail(DiagKind::PythonException, a.span, {std::string("ValueError: ") + name + "() arg is an empty sequence"});
    }
    bool ir = std::any_of(items.begin(), items.end(), [&](const Value& v) { return ev.is_ir(v); });
    if (ir && !key) {
        ir::Expr acc = ev.to_expr(items[0], a.span);
        for (size_t i = 1; i < items.size(); ++i)
            acc = ir::make_binary(is_max ? ir::BinaryOp::Max : ir::BinaryOp::Min, acc, ev.to_expr(items[i], a.span), a.span);
        return Value::expr(acc);
    }
    auto keyed = [&](const Value& v) -> Value {
        if (!key) return v;
        CallArgs ka;
        ka.span = a.span;
        ka.func_span = a.span;
        ka.pos = {v};
        ka.pos_spans = {a.span};
        return ev.call(*key, ka);
    };
    Value best = items[0], best_k = keyed(items[0]);
    for (size_t i = 1; i < items.size(); ++i) {
        Value k = keyed(items[i]);
        Value better = ev.compare(is_max ? ast::CmpOpKind::Gt : ast::CmpOpKind::Lt, k, best_k, a.span);
        if (ev.truthy(better, a.span)) { best = items[i]; best_k = k; }
    }
    return best;
}

Value to_int(Evaluator& ev, CallArgs& a) {
    ArgReader r(ev, a, "int", {"x", "base"});
    const Value* x = r.get(0);
    if (!x) return Value::integer(0);
    if (x->kind == VK::Float) {
        if (!std::isfinite(x->f) || std::fabs(x->f) > 9.2e18) ev.fail(DiagKind::IntegerOverflow, a.span, {"int()"});
        return Value::integer(static_cast<int64_t>(x->f));
    }
    if (x->kind == VK::Str) {
        int base = r.get(1) ? static_cast<int>(ev.as_int(*r.get(1), r.span(1), "base")) : 10;
        try {
            size_t used = 0;
            int64_t v = std::stoll(str_of(*x), &used, base);
            if (used == str_of(*x).size()) return Value::integer(v);
        } catch (...) {
        }
        ev.fail(DiagKind::PythonException, a.span, {"ValueError: invalid literal for int(): " + repr(*x)});
    }
    if (ev.is_ir(*x)) return Value::expr(ir::make_cast(ir::DataType::int32(), ev.to_expr(*x, a.span), a.span));
    return Value::integer(ev.as_int(*x, r.span(0), "int()"));
}

Value to_float(Evaluator& ev, CallArgs& a) {
    ArgReader r(ev, a, "float", {"x"});
    const Value* x = r.get(0);
    if (!x) return Value::floating(0);
    if (x->kind == VK::Str) {
        std::string s = str_of(*x);
        if (s == "inf" || s == "+inf") return Value::floating(INFINITY);
        if (s == "-inf") return Value::floating(-INFINITY);
        if (s == "nan") return Value::floating(NAN);
        try {
            size_t used = 0;
            double v = std::stod(s, &used);
            if (used == s.size()) return Value::floating(v);
        } catch (...) {
        }
        ev.fail(DiagKind::PythonException, a.span, {"ValueError: could not convert string to float: " + repr(*x)});
    }
    if (ev.is_ir(*x)) return Value::expr(ir::make_cast(ir::DataType::float32(), ev.to_expr(*x, a.span), a.span));
    return Value::floating(ev.as_float(*x, r.span(0), "float()"));
}

bool isinstance_of(Evaluator& ev, const Value& x, const Value& t, Span span) {
    if (t.kind == VK::Tuple) {
        for (const auto& e : items_of(t))
            if (isinstance_of(ev, x, e, span)) return true;
        return false;
    }
    if (t.kind != VK::Builtin) return false;
    const std::string& n = t.as<BuiltinObj>()->name;
    if (n == "int") return x.kind == VK::Int || x.kind == VK::Bool;
    if (n == "float") return x.kind == VK::Float;
    if (n == "bool") return x.kind == VK::Bool;
    if (n == "str") return x.kind == VK::Str;
    if (n == "list") return x.kind == VK::List;
    if (n == "tuple") return x.kind == VK::Tuple;
    if (n == "dict") return x.kind == VK::Dict;
    return false;
}

Value exception_class(const std::string& name) {
    return make_builtin(name, [name](Evaluator&, CallArgs& a) {
        std::string msg = name;
        if (!a.pos.empty()) msg += ": " + to_str(a.pos[0]);
        return Value::str(msg);
    });
}

}  // namespace

void register_python_builtins(Reg& r) {
    def(r, "len", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "len", {"obj"});
        const Value& x = rd.require(0);
        if (x.kind == VK::Dict) return Value::integer(static_cast<int64_t>(x.as<DictObj>()->items.size()));
        if (x.kind == VK::Buffer) return Value::integer(ev.as_int(Value::expr(x.as<BufferObj>()->b->shape[0]), rd.span(0), "len(buffer)"));
        return Value::integer(static_cast<int64_t>(ev.iterate(x, rd.span(0)).size()));
    });
    def(r, "range", [](Evaluator& ev, CallArgs& a) {
        if (a.pos.empty() || a.pos.size() > 3) ev.fail(DiagKind::WrongArgCount, a.span, {"range", "1 to 3", std::to_string(a.pos.size())});
        if (!a.kw.empty()) ev.fail(DiagKind::UnknownKeyword, a.kw_spans[0], {"range", a.kw[0].first, ""});
        auto o = std::make_shared<RangeObj>();
        auto norm = [&](const Value& v, Span s) {
            if (ev.is_ir(v)) return Value::expr(ev.to_expr(v, s));
            return Value::integer(ev.as_int(v, s, "range bound"));
        };
        if (a.pos.size() == 1) { o->start = Value::integer(0); o->stop = norm(a.pos[0], a.pos_spans[0]); }
        else { o->start = norm(a.pos[0], a.pos_spans[0]); o->stop = norm(a.pos[1], a.pos_spans[1]); }
        o->step = a.pos.size() == 3 ? norm(a.pos[2], a.pos_spans[2]) : Value::integer(1);
        return Value::make(VK::Range, o);
    });
    def(r, "min", [](Evaluator& ev, CallArgs& a) { return minmax(ev, a, false); });
    def(r, "max", [](Evaluator& ev, CallArgs& a) { return minmax(ev, a, true); });
    def(r, "abs", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "abs", {"x"});
        const Value& x = rd.require(0);
        if (ev.is_ir(x)) {
            ir::Expr e = ev.to_expr(x, a.span);
            return Value::expr(ir::make_call("abs", {e}, e->dtype, a.span));
        }
        if (x.kind == VK::Float) return Value::floating(std::fabs(x.f));
        int64_t v = ev.as_int(x, rd.span(0), "abs()");
        if (v == INT64_MIN) ev.fail(DiagKind::IntegerOverflow, a.span, {"abs"});
        return Value::integer(v < 0 ? -v : v);
    });
    def(r, "int", to_int);
    def(r, "float", to_float);
    def(r, "bool", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "bool", {"x"});
        return Value::boolean(rd.get(0) ? ev.truthy(*rd.get(0), rd.span(0)) : false);
    });
    def(r, "str", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "str", {"x"});
        return Value::str(rd.get(0) ? to_str(*rd.get(0)) : "");
    });
    def(r, "repr", [](Evaluator& ev, CallArgs& a) { ArgReader rd(ev, a, "repr", {"x"}); return Value::str(repr(rd.require(0))); });
    def(r, "tuple", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "tuple", {"iterable"});
        return Value::tuple(rd.get(0) ? ev.iterate(*rd.get(0), rd.span(0)) : std::vector<Value>{});
    });
    def(r, "list", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "list", {"iterable"});
        return Value::list(rd.get(0) ? ev.iterate(*rd.get(0), rd.span(0)) : std::vector<Value>{});
    });
    def(r, "set", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "set", {"iterable"});
        std::vector<Value> out;
        if (rd.get(0))
            for (auto& v : ev.iterate(*rd.get(0), rd.span(0))) {
                bool dup = false;
                for (const auto& o : out) dup |= values_equal(o, v);
                if (!dup) out.push_back(v);
            }
        return Value::list(std::move(out));
    });
    def(r, "dict", [](Evaluator& ev, CallArgs& a) {
        auto d = std::make_shared<DictObj>();
        auto put = [&](const Value& k, const Value& v) {
            for (auto& e : d->items)
                if (values_equal(e.first, k)) { e.second = v; return; }
            d->items.emplace_back(k, v);
        };
        if (a.pos.size() > 1) ev.fail(DiagKind::WrongArgCount, a.span, {"dict", "1", std::to_string(a.pos.size())});
        if (!a.pos.empty()) {
            if (a.pos[0].kind == VK::Dict) {
                for (const auto& [k, v] : a.pos[0].as<DictObj>()->items) put(k, v);
            } else {
                for (const auto& pair : ev.iterate(a.pos[0], a.pos_spans[0])) {
                    auto kv = ev.iterate(pair, a.pos_spans[0]);
                    if (kv.size() != 2) ev.fail(DiagKind::TypeMismatch, a.pos_spans[0], {"dict() items must be pairs"});
                    put(kv[0], kv[1]);
                }
            }
        }
        for (const auto& [k, v] : a.kw) put(Value::str(k), v);
        return Value::make(VK::Dict, d);
    });
    def(r, "zip", [](Evaluator& ev, CallArgs& a) {
        std::vector<std::vector<Value>> seqs;
        for (size_t i = 0; i < a.pos.size(); ++i) seqs.push_back(ev.iterate(a.pos[i], a.pos_spans[i]));
        size_t n = seqs.empty() ? 0 : SIZE_MAX;
        for (const auto& s : seqs) n = std::min(n, s.size());
        std::vector<Value> out;
        for (size_t k = 0; k < n; ++k) {
            std::vector<Value> t;
            for (const auto& s : seqs) t.push_back(s[k]);
            out.push_back(Value::tuple(std::move(t)));
        }
        return Value::list(std::move(out));
    });
    def(r, "enumerate", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "enumerate", {"iterable", "start"});
        int64_t start = rd.get(1) ? ev.as_int(*rd.get(1), rd.span(1), "start") : 0;
        std::vector<Value> out;
        for (auto& v : ev.iterate(rd.require(0), rd.span(0))) out.push_back(Value::tuple({Value::integer(start++), v}));
        return Value::list(std::move(out));
    });
    def(r, "sorted", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "sorted", {"iterable", "key", "reverse"});
        std::vector<Value> items = ev.iterate(rd.require(0), rd.span(0));
        const Value* key = rd.get(1);
        bool rev = rd.get(2) && ev.truthy(*rd.get(2), rd.span(2));
        std::vector<std::pair<Value, Value>> keyed;
        for (auto& v : items) {
            Value k = v;
            if (key && !key->is_none()) {
                CallArgs ka;
                ka.span = a.span;
                ka.func_span = a.span;
                ka.pos = {v};
                ka.pos_spans = {a.span};
                k = ev.call(*key, ka);
            }
            keyed.emplace_back(k, v);
        }
        std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
            return ev.truthy(ev.compare(ast::CmpOpKind::Lt, x.first, y.first, a.span), a.span);
        });
        if (rev) std::reverse(keyed.begin(), keyed.end());
        std::vector<Value> out;
        for (auto& kv : keyed) out.push_back(kv.second);
        return Value::list(std::move(out));
    });
    def(r, "reversed", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "reversed", {"seq"});
        auto items = ev.iterate(rd.require(0), rd.span(0));
        std::reverse(items.begin(), items.end());
        return Value::list(std::move(items));
    });
    def(r, "sum", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "sum", {"iterable", "start"});
        Value acc = rd.get_or(1, Value::integer(0));
        for (auto& v : ev.iterate(rd.require(0), rd.span(0))) acc = ev.binary(ast::OperatorKind::Add, acc, v, a.span);
        return acc;
    });
    def(r, "any", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "any", {"iterable"});
        for (auto& v : ev.iterate(rd.require(0), rd.span(0)))
            if (ev.truthy(v, rd.span(0))) return Value::boolean(true);
        return Value::boolean(false);
    });
    def(r, "all", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "all", {"iterable"});
        for (auto& v : ev.iterate(rd.require(0), rd.span(0)))
            if (!ev.truthy(v, rd.span(0))) return Value::boolean(false);
        return Value::boolean(true);
    });
    def(r, "isinstance", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "isinstance", {"obj", "classinfo"});
        return Value::boolean(isinstance_of(ev, rd.require(0), rd.require(1), rd.span(1)));
    });
    def(r, "callable", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "callable", {"obj"});
        VK k = rd.require(0).kind;
        return Value::boolean(k == VK::Func || k == VK::Builtin || k == VK::Partial || k == VK::DType);
    });
    // print at trace time is host output: it is ignored so kernels trace silently.
    def(r, "print", [](Evaluator&, CallArgs&) { return Value::none(); });
    def(r, "getattr", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "getattr", {"obj", "name", "default"});
        std::string n = ev.as_str(rd.require(1), rd.span(1), "name");
        if (auto v = ev.try_getattr(rd.require(0), n, a.span)) return *v;
        if (rd.get(2)) return *rd.get(2);
        return ev.getattr(rd.require(0), n, a.span);
    });
    def(r, "hasattr", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "hasattr", {"obj", "name"});
        return Value::boolean(ev.try_getattr(rd.require(0), ev.as_str(rd.require(1), rd.span(1), "name"), a.span).has_value());
    });
    def(r, "round", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "round", {"number", "ndigits"});
        double x = ev.as_float(rd.require(0), rd.span(0), "round()");
        if (rd.get(1) && !rd.get(1)->is_none()) {
            double p = std::pow(10.0, static_cast<double>(ev.as_int(*rd.get(1), rd.span(1), "ndigits")));
            return Value::floating(std::nearbyint(x * p) / p);
        }
        return Value::integer(static_cast<int64_t>(std::nearbyint(x)));  // banker's rounding like Python
    });
    def(r, "divmod", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "divmod", {"a", "b"});
        return Value::tuple({ev.binary(ast::OperatorKind::FloorDiv, rd.require(0), rd.require(1), a.span),
                             ev.binary(ast::OperatorKind::Mod, rd.require(0), rd.require(1), a.span)});
    });
    def(r, "pow", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "pow", {"base", "exp"});
        return ev.binary(ast::OperatorKind::Pow, rd.require(0), rd.require(1), a.span);
    });
    def(r, "map", [](Evaluator& ev, CallArgs& a) {
        if (a.pos.size() < 2) ev.fail(DiagKind::WrongArgCount, a.span, {"map", "2", std::to_string(a.pos.size())});
        std::vector<std::vector<Value>> seqs;
        for (size_t i = 1; i < a.pos.size(); ++i) seqs.push_back(ev.iterate(a.pos[i], a.pos_spans[i]));
        size_t n = SIZE_MAX;
        for (const auto& s : seqs) n = std::min(n, s.size());
        std::vector<Value> out;
        for (size_t k = 0; k < n; ++k) {
            CallArgs ca;
            ca.span = a.span;
            ca.func_span = a.pos_spans[0];
            for (const auto& s : seqs) { ca.pos.push_back(s[k]); ca.pos_spans.push_back(a.span); }
            out.push_back(ev.call(a.pos[0], ca));
        }
        return Value::list(std::move(out));
    });
    def(r, "filter", [](Evaluator& ev, CallArgs& a) {
        ArgReader rd(ev, a, "filter", {"function", "iterable"});
        std::vector<Value> out;
        for (auto& v : ev.iterate(rd.require(1), rd.span(1))) {
            bool keep;
            if (rd.require(0).is_none()) keep = ev.truthy(v, a.span);
            else {
                CallArgs ca;
                ca.span = a.span;
                ca.func_span = rd.span(0);
                ca.pos = {v};
                ca.pos_spans = {a.span};
                keep = ev.truthy(ev.call(rd.require(0), ca), a.span);
            }
            if (keep) out.push_back(v);
        }
        return Value::list(std::move(out));
    });
    for (const char* e : {"Exception", "ValueError", "TypeError", "RuntimeError", "AssertionError", "NotImplementedError",
                          "KeyError", "IndexError", "ZeroDivisionError"})
        r[e] = exception_class(e);
    r["True"] = Value::boolean(true);
    r["False"] = Value::boolean(false);
}

}  // namespace tp::eval
