// Scalar math of the T namespace: intrinsics (exp2, rsqrt, ...), T.max/T.min/T.clamp,
// T.if_then_else, T.infinity, casts, T.ceildiv/floordiv/floormod. Python values fold at
// trace time; IR values build IR calls and binaries.
#include <cmath>

#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "math"}, std::move(fn)});
}

ir::Expr to_float_expr(Evaluator& ev, const Value& v, Span span) {
    ir::Expr e = ev.to_expr(v, span, "math argument");
    if (!e->dtype.is_float()) e = ir::make_cast(ir::DataType::float32(), e, span);
    return e;
}

// Brings two operands to one dtype (promotion), as TVM's binary helpers do.
std::pair<ir::Expr, ir::Expr> unify(ir::Expr a, ir::Expr b, Span span) {
    if (a->dtype == b->dtype) return {a, b};
    ir::DataType t = ir::promote(a->dtype, b->dtype);
    if (!(a->dtype == t)) a = ir::make_cast(t, a, span);
    if (!(b->dtype == t)) b = ir::make_cast(t, b, span);
    return {a, b};
}

Value minmax(Evaluator& ev, CallArgs& a, bool is_max) {
    const char* name = is_max ? "T.max" : "T.min";
    if (a.pos.size() < 2) ev.fail(DiagKind::WrongArgCount, a.span, {name, "2", std::to_string(a.pos.size())});
    bool ir = false;
    for (const auto& v : a.pos) ir |= ev.is_ir(v);
    if (!ir) {
        Value best = a.pos[0];
        for (size_t i = 1; i < a.pos.size(); ++i) {
            Value c = ev.compare(is_max ? ast::CmpOpKind::Gt : ast::CmpOpKind::Lt, a.pos[i], best, a.span);
            if (ev.truthy(c, a.span)) best = a.pos[i];
        }
        return best;
    }
    ir::Expr acc = ev.to_expr(a.pos[0], a.pos_spans[0]);
    for (size_t i = 1; i < a.pos.size(); ++i) {
        auto [x, y] = unify(acc, ev.to_expr(a.pos[i], a.pos_spans[i]), a.span);
        acc = ir::make_binary(is_max ? ir::BinaryOp::Max : ir::BinaryOp::Min, x, y, a.span);
    }
    return Value::expr(acc);
}

// Integer division helpers that fold on Python ints and build IR otherwise.
Value int_div(Evaluator& ev, CallArgs& a, const char* name, ir::BinaryOp op) {
    ArgReader rd(ev, a, name, {"a", "b"});
    const Value& x = rd.require(0);
    const Value& y = rd.require(1);
    if (!ev.is_ir(x) && !ev.is_ir(y)) {
        int64_t p = ev.as_int(x, rd.span(0), name), q = ev.as_int(y, rd.span(1), name);
        if (q == 0) ev.fail(DiagKind::DivisionByZero, a.span);
        if (op == ir::BinaryOp::FloorDiv) return ev.binary(ast::OperatorKind::FloorDiv, x, y, a.span);
        if (op == ir::BinaryOp::FloorMod) return ev.binary(ast::OperatorKind::Mod, x, y, a.span);
        if (op == ir::BinaryOp::Div) return Value::integer(p / q);
        return Value::integer(p % q);
    }
    return Value::expr(ir::make_binary(op, ev.to_expr(x, rd.span(0)), ev.to_expr(y, rd.span(1)), a.span));
}

}  // namespace

Value reinterpret_value(Evaluator& ev, const Value& v, Span vspan, ir::DataType to, Span span) {
    ir::Expr e = ev.to_expr(v, vspan, "T.reinterpret value");
    if (e->dtype.bits != to.bits || e->dtype.lanes != to.lanes)
        ev.fail(DiagKind::TypeMismatch, span,
                {"`T.reinterpret` needs a value as wide as " + to.name() + " (" + std::to_string(to.bits) + " bits), got " + e->dtype.name()});
    if (e->dtype == to) return Value::expr(e);
    return Value::expr(ir::make_call("reinterpret", {e}, to, span));
}

void register_tile_math(Reg& r) {
    // tilelang.language.fp8.determine_fp8_type: the fp8 dtype of the platform. TileLang answers
    // the FNUZ variants only on ROCm; every target here is CUDA, so it is e4m3fn or e5m2.
    r.push_back({{"determine_fp8_type", "T.determine_fp8_type(fp8_format=\"e4m3\")", "the platform's fp8 dtype: float8_e4m3fn or float8_e5m2 on CUDA",
                  "math"},
                 [](Evaluator& ev, CallArgs& a) -> Value {
                     ArgReader rd(ev, a, "determine_fp8_type", {"fp8_format"});
                     const std::string format = rd.get(0) ? ev.as_str(*rd.get(0), rd.span(0), "fp8_format") : "e4m3";
                     if (format != "e4m3" && format != "e5m2")
                         ev.fail(DiagKind::PythonException, a.span, {"ValueError: Unsupported FP8 format: " + format});
                     return Value::dtype(*ir::DataType::parse(format == "e4m3" ? "float8_e4m3fn" : "float8_e5m2"));
                 }});
    struct Unary {
        const char* name;
        const char* doc;
        double (*fold)(double);
    };
    static const Unary unaries[] = {
        {"exp", "e^x", [](double x) { return std::exp(x); }},
        {"exp2", "2^x (fast on GPUs)", [](double x) { return std::exp2(x); }},
        {"log", "natural logarithm", [](double x) { return std::log(x); }},
        {"log2", "base-2 logarithm", [](double x) { return std::log2(x); }},
        {"log10", "base-10 logarithm", [](double x) { return std::log10(x); }},
        {"rsqrt", "1 / sqrt(x)", [](double x) { return 1.0 / std::sqrt(x); }},
        {"sqrt", "square root", [](double x) { return std::sqrt(x); }},
        {"tanh", "hyperbolic tangent", [](double x) { return std::tanh(x); }},
        {"erf", "error function", [](double x) { return std::erf(x); }},
        {"sigmoid", "1 / (1 + e^-x)", [](double x) { return 1.0 / (1.0 + std::exp(-x)); }},
        {"floor", "round down", [](double x) { return std::floor(x); }},
        {"ceil", "round up", [](double x) { return std::ceil(x); }},
        {"sin", "sine", [](double x) { return std::sin(x); }},
        {"cos", "cosine", [](double x) { return std::cos(x); }},
        {"round", "round to nearest even", [](double x) { return std::nearbyint(x); }},
        {"trunc", "round toward zero", [](double x) { return std::trunc(x); }},
    };
    for (const auto& u : unaries) {
        std::string name = u.name;
        auto fold = u.fold;
        add(r, name, "T." + name + "(x)", u.doc, [name, fold](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T." + name, {"x"});
            const Value& x = rd.require(0);
            if (!ev.is_ir(x))
                return Value::expr(ir::float_imm(fold(ev.as_float(x, rd.span(0), ("T." + name).c_str())), ir::DataType::float32(), a.span));
            ir::Expr e = to_float_expr(ev, x, rd.span(0));
            return Value::expr(ir::make_call(name, {e}, e->dtype, a.span));
        });
    }
    add(r, "abs", "T.abs(x)", "absolute value", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.abs", {"x"});
        ir::Expr e = ev.to_expr(rd.require(0), rd.span(0), "T.abs argument");
        return Value::expr(ir::make_call("abs", {e}, e->dtype, a.span));
    });
    add(r, "pow", "T.pow(x, y)", "x^y", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.pow", {"x", "y"});
        auto [x, y] = unify(to_float_expr(ev, rd.require(0), rd.span(0)), to_float_expr(ev, rd.require(1), rd.span(1)), a.span);
        return Value::expr(ir::make_call("pow", {x, y}, x->dtype, a.span));
    });
    add(r, "max", "T.max(a, b)", "maximum (IR max on kernel values)", [](Evaluator& ev, CallArgs& a) { return minmax(ev, a, true); });
    add(r, "min", "T.min(a, b)", "minimum (IR min on kernel values)", [](Evaluator& ev, CallArgs& a) { return minmax(ev, a, false); });
    add(r, "clamp", "T.clamp(x, lo, hi)", "min(max(x, lo), hi)", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.clamp", {"x", "lo", "hi"});
        ir::Expr x = ev.to_expr(rd.require(0), rd.span(0));
        ir::Expr lo = ev.to_expr(rd.require(1), rd.span(1)), hi = ev.to_expr(rd.require(2), rd.span(2));
        if (!(lo->dtype == x->dtype)) lo = ir::make_cast(x->dtype, lo, rd.span(1));
        if (!(hi->dtype == x->dtype)) hi = ir::make_cast(x->dtype, hi, rd.span(2));
        return Value::expr(ir::make_binary(ir::BinaryOp::Min, ir::make_binary(ir::BinaryOp::Max, x, lo, a.span), hi, a.span));
    });
    // TVM's bit operations by name (tir.shift_left ...), as Python's operators on the same values.
    static const std::pair<const char*, ast::OperatorKind> bit_ops[] = {{"shift_left", ast::OperatorKind::LShift},
                                                                   {"shift_right", ast::OperatorKind::RShift},
                                                                   {"bitwise_and", ast::OperatorKind::BitAnd},
                                                                   {"bitwise_or", ast::OperatorKind::BitOr},
                                                                   {"bitwise_xor", ast::OperatorKind::BitXor}};
    for (const auto& [name, op] : bit_ops)
        add(r, name, std::string("T.") + name + "(a, b)", std::string("a ") + name + " b, on integers",
            [fname = std::string("T.") + name, op = op](Evaluator& ev, CallArgs& a) -> Value {
                ArgReader rd(ev, a, fname, {"a", "b"});
                return ev.binary(op, rd.require(0), rd.require(1), a.span);
            });
    add(r, "if_then_else", "T.if_then_else(cond, a, b)", "select a where cond holds, else b", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.if_then_else", {"cond", "t", "f"});
        const Value& c = rd.require(0);
        if (!ev.is_ir(c)) return ev.truthy(c, rd.span(0)) ? rd.require(1) : rd.require(2);
        ir::Expr cond = ev.to_expr(c, rd.span(0), "condition");
        auto [t, f] = unify(ev.to_expr(rd.require(1), rd.span(1)), ev.to_expr(rd.require(2), rd.span(2)), a.span);
        return Value::expr(ir::make_select(cond, t, f, a.span));
    });
    // T.rng_init(seed, seq=None, off=0): the thread's Philox generator (cuRAND's
    // curandStatePhilox4_32_10_t: seq is the subsequence, off the offset within it); seq
    // defaults to TileLang's thread id tx + bx * threads. T.rng_rand(): its next 32-bit draw.
    add(r, "rng_init", "T.rng_init(seed, seq=None, off=0, generator=\"curandStatePhilox4_32_10_t\")", "seed this thread's Philox random generator",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.rng_init", {"seed", "seq", "off", "generator"});
            require_kernel(ev, "T.rng_init", a.span);
            if (const Value* g = rd.get(3); g && ev.as_str(*g, rd.span(3), "generator") != "curandStatePhilox4_32_10_t")
                ev.fail(DiagKind::UnsupportedConstruct, rd.span(3),
                        {"generator=\"" + ev.as_str(*g, rd.span(3), "generator") + "\"", "; T.rng_init runs curandStatePhilox4_32_10_t"});
            auto u64 = [&](ir::Expr e) { return ir::make_cast(ir::DataType::int64(), std::move(e), a.span); };
            ir::Expr seq;
            if (const Value* q = rd.get(1); q && !q->is_none()) {
                seq = ev.to_expr(*q, rd.span(1), "seq");
            } else {
                if (ev.kernel->thread_vars.empty() || ev.kernel->block_vars.empty())
                    ev.fail(DiagKind::TypeMismatch, a.span, {"`T.rng_init` without `seq` needs the kernel's block and thread indices"});
                ir::Expr tx = ev.kernel->thread_vars[0], bx = ev.kernel->block_vars[0];
                int64_t threads = ev.kernel->thread_extents.empty() ? 1 : ev.kernel->thread_extents[0];
                seq = ir::make_binary(ir::BinaryOp::Add, tx, ir::make_binary(ir::BinaryOp::Mul, bx, ir::int_imm(threads), a.span), a.span);
            }
            ir::Expr off = rd.get(2) ? ev.to_expr(*rd.get(2), rd.span(2), "off") : ir::int_imm(0);
            ir::Expr seed = ev.to_expr(rd.require(0), rd.span(0), "seed");
            for (const auto& [e, span] : {std::pair{seed, rd.span(0)}, std::pair{seq, rd.span(1)}, std::pair{off, rd.span(2)}})
                if (!e->dtype.is_int()) ev.fail(DiagKind::TypeMismatch, span, {"`T.rng_init` takes integer seed, seq and off"});
            return Value::expr(ir::make_call("rng_init", {u64(seed), u64(seq), u64(off)}, ir::DataType::void_(), a.span));
        });
    add(r, "rng_rand", "T.rng_rand()", "the next 32-bit unsigned draw of this thread's random generator", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.rng_rand", {});
        require_kernel(ev, "T.rng_rand", a.span);
        return Value::expr(ir::make_call("rng_rand", {}, ir::DataType(ir::DataType::UInt, 32), a.span));
    });
    add(r, "infinity", "T.infinity(dtype)", "+inf of a floating dtype (negate for -inf)", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.infinity", {"dtype"});
        ir::DataType t = ev.as_dtype(rd.require(0), rd.span(0));
        if (!t.is_float()) ev.fail(DiagKind::TypeMismatch, rd.span(0), {"`T.infinity` needs a floating dtype, got " + t.name()});
        return Value::expr(ir::float_imm(INFINITY, t, a.span));
    });
    add(r, "cast", "T.cast(x, dtype)", "convert x to dtype", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.cast", {"x", "dtype"});
        ir::DataType t = ev.as_dtype(rd.require(1), rd.span(1));
        return Value::expr(ir::make_cast(t, ev.to_expr(rd.require(0), rd.span(0)), a.span));
    });
    add(r, "reinterpret", "T.reinterpret(x, dtype)", "the bits of x read as dtype (same width)", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.reinterpret", {"value", "dtype"});
        // TileLang still takes TVM's old order, the dtype first.
        size_t v = 0, d = 1;
        if (rd.require(0).kind == VK::DType || rd.require(0).kind == VK::Str) std::swap(v, d);
        return reinterpret_value(ev, rd.require(v), rd.span(v), ev.as_dtype(rd.require(d), rd.span(d)), a.span);
    });
    add(r, "Cast", "T.Cast(dtype, x)", "convert x to dtype (TVM argument order)", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.Cast", {"dtype", "x"});
        ir::DataType t = ev.as_dtype(rd.require(0), rd.span(0));
        return Value::expr(ir::make_cast(t, ev.to_expr(rd.require(1), rd.span(1)), a.span));
    });
    add(r, "ceildiv", "T.ceildiv(a, b)", "(a + b - 1) // b", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.ceildiv", {"a", "b"});
        const Value& x = rd.require(0);
        const Value& y = rd.require(1);
        if (!ev.is_ir(y) && ev.as_int(y, rd.span(1), "T.ceildiv divisor") == 0) ev.fail(DiagKind::DivisionByZero, a.span);
        Value num = ev.binary(ast::OperatorKind::Sub, ev.binary(ast::OperatorKind::Add, x, y, a.span), Value::integer(1), a.span);
        return ev.binary(ast::OperatorKind::FloorDiv, num, y, a.span);
    });
    add(r, "floordiv", "T.floordiv(a, b)", "floor division",
        [](Evaluator& ev, CallArgs& a) { return int_div(ev, a, "T.floordiv", ir::BinaryOp::FloorDiv); });
    add(r, "floormod", "T.floormod(a, b)", "modulo with the divisor's sign",
        [](Evaluator& ev, CallArgs& a) { return int_div(ev, a, "T.floormod", ir::BinaryOp::FloorMod); });
    add(r, "truncdiv", "T.truncdiv(a, b)", "C division", [](Evaluator& ev, CallArgs& a) { return int_div(ev, a, "T.truncdiv", ir::BinaryOp::Div); });
    add(r, "truncmod", "T.truncmod(a, b)", "C remainder", [](Evaluator& ev, CallArgs& a) { return int_div(ev, a, "T.truncmod", ir::BinaryOp::Mod); });
}

}  // namespace tp::eval
