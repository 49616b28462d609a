// Python operators at trace time: Python semantics on Python values (floor division, modulo
// with the divisor's sign, int64 overflow checks), IR construction as soon as one operand is
// an IR value (`//` -> FloorDiv, `%` -> FloorMod, comparisons -> bool expressions).
#include <cmath>

#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using ast::CmpOpKind;
using ast::OperatorKind;

int64_t ival(const Value& v) { return v.kind == VK::Bool ? (v.b ? 1 : 0) : v.i; }
double fval(const Value& v) { return v.kind == VK::Float ? v.f : static_cast<double>(ival(v)); }
bool is_intlike(const Value& v) { return v.kind == VK::Int || v.kind == VK::Bool; }

int64_t floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}
int64_t floormod(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}

Value repeat(const Value& seq, int64_t n) {
    std::vector<Value> out;
    out.reserve(static_cast<size_t>(std::max<int64_t>(n, 0)) * items_of(seq).size());
    for (int64_t k = 0; k < n; ++k)
        for (const auto& x : items_of(seq)) out.push_back(x);
    return seq.kind == VK::List ? Value::list(std::move(out)) : Value::tuple(std::move(out));
}

// `[0] * 10**10` must be refused before it allocates, with the line that asked for it.
constexpr int64_t kMaxTraceItems = 10000000;

}  // namespace

void Evaluator::check_repeat_size(const Value& a, const Value& b, Span span) {
    const Value& seq = is_intlike(b) ? a : b;
    const Value& count = is_intlike(b) ? b : a;
    if (!is_intlike(count) || !(seq.is_seq() || seq.kind == VK::Str)) return;
    int64_t len = seq.kind == VK::Str ? static_cast<int64_t>(str_of(seq).size()) : static_cast<int64_t>(items_of(seq).size());
    int64_t n = 0;
    if (__builtin_mul_overflow(len, std::max<int64_t>(ival(count), 0), &n) || n > kMaxTraceItems)
        fail(DiagKind::SizeTooLarge, span, {"the result of `*`", std::to_string(len) + " x " + std::to_string(ival(count)) + " items; trace-time " +
                                            "lists, tuples and strings hold at most " + std::to_string(kMaxTraceItems) + " items"});
}

namespace {

std::optional<ir::BinaryOp> ir_binop(OperatorKind op) {
    switch (op) {
        case OperatorKind::Add: return ir::BinaryOp::Add;
        case OperatorKind::Sub: return ir::BinaryOp::Sub;
        case OperatorKind::Mult: return ir::BinaryOp::Mul;
        case OperatorKind::Div: return ir::BinaryOp::Div;
        case OperatorKind::FloorDiv: return ir::BinaryOp::FloorDiv;
        case OperatorKind::Mod: return ir::BinaryOp::FloorMod;
        case OperatorKind::BitAnd: return ir::BinaryOp::BitAnd;
        case OperatorKind::BitOr: return ir::BinaryOp::BitOr;
        case OperatorKind::BitXor: return ir::BinaryOp::BitXor;
        case OperatorKind::LShift: return ir::BinaryOp::Shl;
        case OperatorKind::RShift: return ir::BinaryOp::Shr;
        default: return std::nullopt;
    }
}

ir::BinaryOp ir_cmp(CmpOpKind op) {
    switch (op) {
        case CmpOpKind::Eq: return ir::BinaryOp::EQ;
        case CmpOpKind::NotEq: return ir::BinaryOp::NE;
        case CmpOpKind::Lt: return ir::BinaryOp::LT;
        case CmpOpKind::LtE: return ir::BinaryOp::LE;
        case CmpOpKind::Gt: return ir::BinaryOp::GT;
        default: return ir::BinaryOp::GE;
    }
}

// -1, 0, 1 for Python ordering of comparable values; nullopt when not comparable.
std::optional<int> order(const Value& a, const Value& b) {
    if (a.is_number() && b.is_number()) {
        if (is_intlike(a) && is_intlike(b)) return ival(a) < ival(b) ? -1 : (ival(a) > ival(b) ? 1 : 0);
        double x = fval(a), y = fval(b);
        return x < y ? -1 : (x > y ? 1 : 0);
    }
    if (a.kind == VK::Str && b.kind == VK::Str) {
        int c = str_of(a).compare(str_of(b));
        return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    if (a.is_seq() && a.kind == b.kind) {
        const auto &x = items_of(a), &y = items_of(b);
        for (size_t i = 0; i < x.size() && i < y.size(); ++i) {
            if (values_equal(x[i], y[i])) continue;
            return order(x[i], y[i]);
        }
        return x.size() < y.size() ? -1 : (x.size() > y.size() ? 1 : 0);
    }
    return std::nullopt;
}

}  // namespace

bool Evaluator::is_ir(const Value& v) const {
    return v.kind == VK::Expr || (v.kind == VK::Buffer && v.as<BufferObj>()->b->scope == ir::Scope::Var);
}

Value Evaluator::binary(OperatorKind op, const Value& a, const Value& b, Span span) {
    if (a.kind == VK::Opaque || b.kind == VK::Opaque)
        if (auto t = host_tensor_binary(a, b)) return *t;  // `torch.rand(m, k) * 2 - 1`
    if (is_ir(a) || is_ir(b)) {
        if (!(is_ir(a) || a.is_number()) || !(is_ir(b) || b.is_number()))
            fail(DiagKind::TypeMismatch, span, {"unsupported operand types for `" + std::string(ast::operator_symbol(op)) +
                                                 "`: " + type_name(a) + " and " + type_name(b)});
        ir::Expr x = to_expr(a, span), y = to_expr(b, span);
        if (op == OperatorKind::Pow) {
            ir::DataType t = ir::promote(x->dtype, y->dtype);
            if (!t.is_float()) t = ir::DataType::float32();
            return Value::expr(ir::make_call("pow", {ir::make_cast(t, x, span), ir::make_cast(t, y, span)}, t, span));
        }
        auto bop = ir_binop(op);
        if (!bop) fail(DiagKind::UnsupportedConstruct, span, {ast::operator_symbol(op), " on IR values"});
        return Value::expr(ir::make_binary(*bop, x, y, span));
    }
    auto overflow = [&]() -> Value {
        fail(DiagKind::IntegerOverflow, span, {std::string(ast::operator_symbol(op))});
    };
    if (a.is_number() && b.is_number()) {
        bool ints = is_intlike(a) && is_intlike(b);
        if (ints) {
            int64_t x = ival(a), y = ival(b), r = 0;
            switch (op) {
                case OperatorKind::Add: if (__builtin_add_overflow(x, y, &r)) return overflow(); return Value::integer(r);
                case OperatorKind::Sub: if (__builtin_sub_overflow(x, y, &r)) return overflow(); return Value::integer(r);
                case OperatorKind::Mult: if (__builtin_mul_overflow(x, y, &r)) return overflow(); return Value::integer(r);
                case OperatorKind::Div:
                    if (y == 0) fail(DiagKind::DivisionByZero, span);
                    return Value::floating(static_cast<double>(x) / static_cast<double>(y));
                case OperatorKind::FloorDiv:
                    if (y == 0) fail(DiagKind::DivisionByZero, span);
                    if (x == INT64_MIN && y == -1) return overflow();
                    return Value::integer(floordiv(x, y));
                case OperatorKind::Mod:
                    if (y == 0) fail(DiagKind::DivisionByZero, span);
                    if (y == -1) return Value::integer(0);
                    return Value::integer(floormod(x, y));
                case OperatorKind::Pow: {
                    if (y < 0) return Value::floating(std::pow(static_cast<double>(x), static_cast<double>(y)));
                    int64_t acc = 1;
                    for (int64_t k = 0; k < y; ++k) {
                        if (__builtin_mul_overflow(acc, x, &acc)) return overflow();
                        if (acc == 0 || acc == 1) break;
                    }
                    if (acc == 1 && x == -1) acc = (y % 2) ? -1 : 1;
                    return Value::integer(acc);
                }
                case OperatorKind::BitAnd: return a.kind == VK::Bool && b.kind == VK::Bool ? Value::boolean(x & y) : Value::integer(x & y);
                case OperatorKind::BitOr: return a.kind == VK::Bool && b.kind == VK::Bool ? Value::boolean(x | y) : Value::integer(x | y);
                case OperatorKind::BitXor: return a.kind == VK::Bool && b.kind == VK::Bool ? Value::boolean(x ^ y) : Value::integer(x ^ y);
                case OperatorKind::LShift:
                    if (y < 0 || y >= 64 || (x != 0 && (y >= 63 || std::llabs(x) > (INT64_MAX >> y)))) return overflow();
                    return Value::integer(x << y);
                case OperatorKind::RShift: return Value::integer(y >= 64 ? (x < 0 ? -1 : 0) : x >> y);
                case OperatorKind::MatMult: break;
            }
        } else {
            double x = fval(a), y = fval(b);
            switch (op) {
                case OperatorKind::Add: return Value::floating(x + y);
                case OperatorKind::Sub: return Value::floating(x - y);
                case OperatorKind::Mult: return Value::floating(x * y);
                case OperatorKind::Div:
                    if (y == 0) fail(DiagKind::DivisionByZero, span);
                    return Value::floating(x / y);
                case OperatorKind::FloorDiv:
                    if (y == 0) fail(DiagKind::DivisionByZero, span);
                    return Value::floating(std::floor(x / y));
                case OperatorKind::Mod: {
                    if (y == 0) fail(DiagKind::DivisionByZero, span);
                    double r = std::fmod(x, y);
                    if (r != 0 && ((r < 0) != (y < 0))) r += y;
                    return Value::floating(r);
                }
                case OperatorKind::Pow: return Value::floating(std::pow(x, y));
                default: break;
            }
        }
    }
    if (op == OperatorKind::Add) {
        if (a.kind == VK::Str && b.kind == VK::Str) return Value::str(str_of(a) + str_of(b));
        if (a.is_seq() && a.kind == b.kind) {
            std::vector<Value> out = items_of(a);
            out.insert(out.end(), items_of(b).begin(), items_of(b).end());
            return a.kind == VK::List ? Value::list(std::move(out)) : Value::tuple(std::move(out));
        }
    }
    if (op == OperatorKind::Mult) {
        check_repeat_size(a, b, span);
        if (a.is_seq() && is_intlike(b)) return repeat(a, ival(b));
        if (b.is_seq() && is_intlike(a)) return repeat(b, ival(a));
        if (a.kind == VK::Str && is_intlike(b)) {
            std::string s;
            for (int64_t k = 0; k < ival(b); ++k) s += str_of(a);
            return Value::str(s);
        }
    }
    if (op == OperatorKind::BitOr && a.kind == VK::Dict && b.kind == VK::Dict) {
        auto d = std::make_shared<DictObj>(*a.as<DictObj>());
        for (const auto& kv : b.as<DictObj>()->items) {
            bool found = false;
            for (auto& e : d->items)
                if (values_equal(e.first, kv.first)) { e.second = kv.second; found = true; break; }
            if (!found) d->items.push_back(kv);
        }
        return Value::make(VK::Dict, d);
    }
    fail(DiagKind::TypeMismatch, span, {"unsupported operand types for `" + std::string(ast::operator_symbol(op)) + "`: " +
                                         type_name(a) + " and " + type_name(b)});
}

Value Evaluator::compare(CmpOpKind op, const Value& a, const Value& b, Span span) {
    switch (op) {
        case CmpOpKind::Is: case CmpOpKind::IsNot: {
            bool same;
            if (a.kind != b.kind) same = false;
            else if (a.kind == VK::None || a.kind == VK::Bool || a.kind == VK::Ellipsis) same = values_equal(a, b);
            else if (a.kind == VK::DType || a.kind == VK::Int) same = values_equal(a, b);
            else same = a.obj == b.obj;
            return Value::boolean(op == CmpOpKind::Is ? same : !same);
        }
        case CmpOpKind::In: case CmpOpKind::NotIn: {
            bool found = false;
            if (b.kind == VK::Str && a.kind == VK::Str) found = str_of(b).find(str_of(a)) != std::string::npos;
            else if (b.kind == VK::Dict) {
                for (const auto& kv : b.as<DictObj>()->items)
                    if (values_equal(kv.first, a)) { found = true; break; }
            } else {
                if (is_ir(a)) fail(DiagKind::NotConstant, span, {"in"});
                for (const auto& x : iterate(b, span))
                    if (values_equal(x, a)) { found = true; break; }
            }
            return Value::boolean(op == CmpOpKind::In ? found : !found);
        }
        default: break;
    }
    if (is_ir(a) || is_ir(b)) {
        if (!(is_ir(a) || a.is_number()) || !(is_ir(b) || b.is_number()))
            fail(DiagKind::TypeMismatch, span, {"cannot compare " + type_name(a) + " with " + type_name(b)});
        return Value::expr(ir::make_binary(ir_cmp(op), to_expr(a, span), to_expr(b, span), span));
    }
    if (op == CmpOpKind::Eq) return Value::boolean(values_equal(a, b));
    if (op == CmpOpKind::NotEq) return Value::boolean(!values_equal(a, b));
    auto o = order(a, b);
    if (!o) fail(DiagKind::TypeMismatch, span, {"`" + std::string(ast::cmpop_symbol(op)) + "` not supported between " +
                                                 type_name(a) + " and " + type_name(b)});
    switch (op) {
        case CmpOpKind::Lt: return Value::boolean(*o < 0);
        case CmpOpKind::LtE: return Value::boolean(*o <= 0);
        case CmpOpKind::Gt: return Value::boolean(*o > 0);
        default: return Value::boolean(*o >= 0);
    }
}

Value Evaluator::unary(ast::UnaryOpKind op, const Value& a, Span span) {
    using ast::UnaryOpKind;
    if (op == UnaryOpKind::Not) return logical_not(a, span);
    if (is_ir(a)) {
        ir::Expr e = to_expr(a, span);
        if (op == UnaryOpKind::UAdd) return Value::expr(e);
        if (op == UnaryOpKind::USub) return Value::expr(ir::make_unary(ir::UnaryOp::Neg, e, span));
        return Value::expr(ir::make_unary(ir::UnaryOp::BitNot, e, span));
    }
    if (a.is_number()) {
        if (op == UnaryOpKind::UAdd) return a.kind == VK::Bool ? Value::integer(a.b) : a;
        if (op == UnaryOpKind::USub) {
            if (a.kind == VK::Float) return Value::floating(-a.f);
            if (ival(a) == INT64_MIN) fail(DiagKind::IntegerOverflow, span, {"-"});
            return Value::integer(-ival(a));
        }
        if (a.kind != VK::Float) return Value::integer(~ival(a));
    }
    fail(DiagKind::TypeMismatch, span, {"bad operand type for unary `" + std::string(ast::unaryop_symbol(op)) + "`: " + type_name(a)});
}

Value Evaluator::logical_not(const Value& a, Span span) {
    if (is_ir(a)) {
        ir::Expr e = to_expr(a, span);
        if (!e->dtype.is_bool()) e = ir::make_binary(ir::BinaryOp::NE, e, ir::int_imm(0, e->dtype, span), span);
        return Value::expr(ir::make_unary(ir::UnaryOp::Not, e, span));
    }
    return Value::boolean(!truthy(a, span));
}

static ir::Expr as_bool_expr(const ir::Expr& e, Span span) {
    if (e->dtype.is_bool()) return e;
    return ir::make_binary(ir::BinaryOp::NE, e, e->dtype.is_float() ? ir::float_imm(0, e->dtype, span) : ir::int_imm(0, e->dtype, span), span);
}

Value Evaluator::logical_and(const Value& a, const Value& b, Span span) {
    return Value::expr(ir::make_binary(ir::BinaryOp::And, as_bool_expr(to_expr(a, span), span), as_bool_expr(to_expr(b, span), span), span));
}

Value Evaluator::logical_or(const Value& a, const Value& b, Span span) {
    return Value::expr(ir::make_binary(ir::BinaryOp::Or, as_bool_expr(to_expr(a, span), span), as_bool_expr(to_expr(b, span), span), span));
}

bool Evaluator::truthy(const Value& v, Span span) {
    switch (v.kind) {
        case VK::None: return false;
        case VK::Bool: return v.b;
        case VK::Int: return v.i != 0;
        case VK::Float: return v.f != 0;
        case VK::Str: return !str_of(v).empty();
        case VK::Tuple: case VK::List: return !items_of(v).empty();
        case VK::Dict: return !v.as<DictObj>()->items.empty();
        case VK::Range: return !iterate(v, span).empty();
        case VK::Expr: {
            if (auto c = ir::as_const_int(v.as<ExprObj>()->e)) return *c != 0;
            fail(DiagKind::NotConstant, span, {ir::print(v.as<ExprObj>()->e)});
        }
        case VK::Buffer:
            if (v.as<BufferObj>()->b->scope == ir::Scope::Var) fail(DiagKind::NotConstant, span, {v.as<BufferObj>()->b->name});
            return true;
        default: return true;
    }
}

}  // namespace tp::eval
