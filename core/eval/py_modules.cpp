// Modules a kernel file may import: `tilelang` (jit, autotune, PassConfigKey, language),
// `tilelang.language` (the T namespace), `math`, `itertools`, `functools`, `typing`.
// A module beside the compiled file (`from helpers import f`) is loaded and evaluated like the
// file itself (py_user_modules.cpp). Anything else (torch, argparse, ...) becomes an opaque
// value that errors only when a kernel actually uses it.
#include <cmath>
#include <numeric>

#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

Value module_of(ModuleKind k, std::string name) {
    auto m = std::make_shared<ModuleObj>();
    m->mod = k;
    m->name = std::move(name);
    return Value::make(VK::Module, m);
}

// `@tilelang.jit`, `@tilelang.jit(out_idx=...)`, `@autotune(configs=...)`: at trace time
// they return the function unchanged; the factory finder reads their arguments from the AST.
Value passthrough_decorator(const std::string& name) {
    return make_builtin(name, [name](Evaluator& ev, CallArgs& a) -> Value {
        if (a.pos.size() == 1 && a.kw.empty() && (a.pos[0].kind == VK::Func || a.pos[0].kind == VK::Builtin)) return a.pos[0];
        return make_builtin(name, [name](Evaluator& ev2, CallArgs& a2) -> Value {
            if (a2.pos.size() != 1) ev2.fail(DiagKind::WrongArgCount, a2.span, {name + "(...)", "1", std::to_string(a2.pos.size())});
            return a2.pos[0];
        });
    });
}

using MathFn = double (*)(double);

Value math_unary(const std::string& name, MathFn fn, const char* ir_op) {
    return make_builtin("math." + name, [name, fn, ir_op](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader r(ev, a, "math." + name, {"x"});
        const Value& x = r.require(0);
        if (ev.is_ir(x) && ir_op) {
            ir::Expr e = ev.to_expr(x, r.span(0));
            ir::DataType t = e->dtype.is_float() ? e->dtype : ir::DataType::float32();
            return Value::expr(ir::make_call(ir_op, {ir::make_cast(t, e, a.span)}, t, a.span));
        }
        double v = ev.as_float(x, r.span(0), ("math." + name).c_str());
        if ((name == "log" || name == "log2" || name == "log10") && v <= 0)
            ev.fail(DiagKind::PythonException, a.span, {"ValueError: math domain error"});
        if (name == "sqrt" && v < 0) ev.fail(DiagKind::PythonException, a.span, {"ValueError: math domain error"});
        double res = fn(v);
        if (name == "ceil" || name == "floor" || name == "trunc") {
            if (!std::isfinite(res) || std::fabs(res) > 9.2e18) ev.fail(DiagKind::IntegerOverflow, a.span, {"math." + name});
            return Value::integer(static_cast<int64_t>(res));
        }
        return Value::floating(res);
    });
}

std::optional<Value> math_attr(const std::string& n) {
    if (n == "pi") return Value::floating(M_PI);
    if (n == "e") return Value::floating(M_E);
    if (n == "inf") return Value::floating(INFINITY);
    if (n == "nan") return Value::floating(NAN);
    if (n == "ceil") return math_unary(n, [](double x) { return std::ceil(x); }, "ceil");
    if (n == "floor") return math_unary(n, [](double x) { return std::floor(x); }, "floor");
    if (n == "trunc") return math_unary(n, [](double x) { return std::trunc(x); }, nullptr);
    if (n == "log2") return math_unary(n, [](double x) { return std::log2(x); }, "log2");
    if (n == "log10") return math_unary(n, [](double x) { return std::log10(x); }, "log10");
    if (n == "sqrt") return math_unary(n, [](double x) { return std::sqrt(x); }, "sqrt");
    if (n == "exp") return math_unary(n, [](double x) { return std::exp(x); }, "exp");
    if (n == "fabs") return math_unary(n, [](double x) { return std::fabs(x); }, "abs");
    if (n == "sin") return math_unary(n, [](double x) { return std::sin(x); }, "sin");
    if (n == "cos") return math_unary(n, [](double x) { return std::cos(x); }, "cos");
    if (n == "tanh") return math_unary(n, [](double x) { return std::tanh(x); }, "tanh");
    if (n == "log")
        return make_builtin("math.log", [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader r(ev, a, "math.log", {"x", "base"});
            double x = ev.as_float(r.require(0), r.span(0), "math.log");
            if (x <= 0) ev.fail(DiagKind::PythonException, a.span, {"ValueError: math domain error"});
            double v = std::log(x);
            if (r.get(1)) v /= std::log(ev.as_float(*r.get(1), r.span(1), "base"));
            return Value::floating(v);
        });
    if (n == "pow")
        return make_builtin("math.pow", [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader r(ev, a, "math.pow", {"x", "y"});
            return Value::floating(std::pow(ev.as_float(r.require(0), r.span(0), "x"), ev.as_float(r.require(1), r.span(1), "y")));
        });
    if (n == "gcd" || n == "lcm")
        return make_builtin("math." + n, [n](Evaluator& ev, CallArgs& a) -> Value {
            int64_t acc = n == "gcd" ? 0 : 1;
            for (size_t i = 0; i < a.pos.size(); ++i) {
                int64_t v = ev.as_int(a.pos[i], a.pos_spans[i], ("math." + n).c_str());
                acc = n == "gcd" ? std::gcd(acc, v) : std::lcm(acc, v);
            }
            return Value::integer(acc);
        });
    if (n == "isqrt")
        return make_builtin("math.isqrt", [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader r(ev, a, "math.isqrt", {"n"});
            int64_t v = ev.as_int(r.require(0), r.span(0), "math.isqrt");
            if (v < 0) ev.fail(DiagKind::PythonException, a.span, {"ValueError: isqrt() argument must be nonnegative"});
            int64_t s = static_cast<int64_t>(std::sqrt(static_cast<double>(v)));
            while (s * s > v) --s;
            while ((s + 1) * (s + 1) <= v) ++s;
            return Value::integer(s);
        });
    if (n == "prod")
        return make_builtin("math.prod", [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader r(ev, a, "math.prod", {"iterable", "start"});
            Value acc = r.get_or(1, Value::integer(1));
            for (const auto& v : ev.iterate(r.require(0), r.span(0))) acc = ev.binary(ast::OperatorKind::Mult, acc, v, a.span);
            return acc;
        });
    return std::nullopt;
}

std::optional<Value> itertools_attr(const std::string& n) {
    if (n == "product")
        return make_builtin("itertools.product", [](Evaluator& ev, CallArgs& a) -> Value {
            int64_t repeat = 1;
            for (size_t k = 0; k < a.kw.size(); ++k) {
                if (a.kw[k].first != "repeat") ev.fail(DiagKind::UnknownKeyword, a.kw_spans[k], {"itertools.product", a.kw[k].first, "; did you mean `repeat`"});
                repeat = ev.as_int(a.kw[k].second, a.kw_spans[k], "repeat");
            }
            std::vector<std::vector<Value>> pools;
            for (int64_t r = 0; r < repeat; ++r)
                for (size_t i = 0; i < a.pos.size(); ++i) pools.push_back(ev.iterate(a.pos[i], a.pos_spans[i]));
            std::vector<std::vector<Value>> result = {{}};
            for (const auto& pool : pools) {
                std::vector<std::vector<Value>> next;
                for (const auto& prefix : result)
                    for (const auto& x : pool) {
                        auto t = prefix;
                        t.push_back(x);
                        next.push_back(std::move(t));
                    }
                result = std::move(next);
                if (result.size() > 10000000) ev.fail(DiagKind::UnsupportedConstruct, a.span, {"itertools.product", "; more than 10000000 items"});
            }
            std::vector<Value> out;
            for (auto& t : result) out.push_back(Value::tuple(std::move(t)));
            return Value::list(std::move(out));
        });
    if (n == "chain")
        return make_builtin("itertools.chain", [](Evaluator& ev, CallArgs& a) -> Value {
            std::vector<Value> out;
            for (size_t i = 0; i < a.pos.size(); ++i)
                for (auto& v : ev.iterate(a.pos[i], a.pos_spans[i])) out.push_back(v);
            return Value::list(std::move(out));
        });
    return std::nullopt;
}

std::optional<Value> functools_attr(const std::string& n) {
    if (n == "partial")
        return make_builtin("functools.partial", [](Evaluator& ev, CallArgs& a) -> Value {
            if (a.pos.empty()) ev.fail(DiagKind::WrongArgCount, a.span, {"functools.partial", "at least 1", "0"});
            auto p = std::make_shared<PartialObj>();
            p->func = a.pos[0];
            p->pos.assign(a.pos.begin() + 1, a.pos.end());
            p->kw = a.kw;
            return Value::make(VK::Partial, p);
        });
    if (n == "reduce")
        return make_builtin("functools.reduce", [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader r(ev, a, "functools.reduce", {"function", "iterable", "initial"});
            auto items = ev.iterate(r.require(1), r.span(1));
            size_t i = 0;
            Value acc;
            if (r.get(2)) acc = *r.get(2);
            else if (items.empty()) ev.fail(DiagKind::PythonException, a.span, {"TypeError: reduce() of empty iterable with no initial value"});
            else acc = items[i++];
            for (; i < items.size(); ++i) {
                CallArgs ca;
                ca.span = a.span;
                ca.func_span = r.span(0);
                ca.pos = {acc, items[i]};
                ca.pos_spans = {a.span, a.span};
                acc = ev.call(r.require(0), ca);
            }
            return acc;
        });
    if (n == "lru_cache" || n == "cache" || n == "wraps") return passthrough_decorator("functools." + n);
    return std::nullopt;
}

}  // namespace

Value Evaluator::module_value(const std::string& dotted, Span span) {
    if (dotted == "tilelang.language" || dotted.rfind("tilelang.language.", 0) == 0) return module_of(ModuleKind::TileLang, "tilelang.language");
    if (dotted == "tilelang") return module_of(ModuleKind::Tilelang, "tilelang");
    if (dotted == "math") return module_of(ModuleKind::Math, "math");
    if (dotted == "itertools") return module_of(ModuleKind::Itertools, "itertools");
    if (dotted == "functools") return module_of(ModuleKind::Functools, "functools");
    if (dotted == "typing") return module_of(ModuleKind::Typing, "typing");
    // TileLang's own home of the warp policy enum, imported directly by some examples.
    if (dotted == "tilelang.tileop.base.GemmWarpPolicy" || dotted == "tilelang.tileop.GemmWarpPolicy")
        return *tile_attr(*this, "GemmWarpPolicy", {});
    if (user_module(dotted, span)) return module_of(ModuleKind::User, dotted);
    auto o = std::make_shared<OpaqueObj>();
    o->what = dotted;
    return Value::make(VK::Opaque, o);
}

std::optional<Value> Evaluator::module_attr(const ModuleObj& m, const std::string& name, Span span) {
    switch (m.mod) {
        case ModuleKind::TileLang: return tile_attr(*this, name, span);
        case ModuleKind::Math: return math_attr(name);
        case ModuleKind::Itertools: return itertools_attr(name);
        case ModuleKind::Functools: return functools_attr(name);
        case ModuleKind::Typing: {
            auto t = std::make_shared<TensorTypeObj>();
            t->type_name = name;
            return Value::make(VK::TypeObj, t);
        }
        case ModuleKind::Tilelang: {
            if (name == "language") return module_of(ModuleKind::TileLang, "tilelang.language");
            if (name == "jit" || name == "lazy_jit" || name == "autotune") return passthrough_decorator("tilelang." + name);
            if (name == "PassConfigKey") {
                auto e = std::make_shared<EnumObj>();
                e->owner = "PassConfigKey";
                return Value::make(VK::Enum, e);
            }
            if (name == "cdiv") return tile_attr(*this, "ceildiv", span);
            if (name == "tvm") return module_value("tvm", span);  // `from tilelang import tvm`: TVM itself
            auto o = std::make_shared<OpaqueObj>();
            o->what = "tilelang." + name;
            return Value::make(VK::Opaque, o);
        }
        case ModuleKind::User:
            return user_module_attr(m.name, name, span);
        case ModuleKind::Opaque: break;
    }
    return std::nullopt;
}

}  // namespace tp::eval
