// Builders for Tile IR expressions and statements. Arithmetic builders fold constants and
// trivial identities (2*64 -> 128, x+0 -> x, x*1 -> x, x*0 -> 0 for ints) so that the index
// math the evaluator stages stays small and the generated CUDA stays readable.
//
// Dtype rule (mirrors TVM/TileLang): when exactly one operand is a constant, the other
// operand's dtype wins (`h * 0.5` stays float16, `i64 + 1` stays int64), unless that would
// turn a float constant into an int (then the float wins). Otherwise C-like promotion.
// Operands are cast to the common dtype explicitly so codegen never relies on C++'s implicit
// conversions between half_t and float.
#include <cmath>

#include "ir/ir.h"

namespace tp::ir {

Expr int_imm(int64_t v, DataType t, Span s) {
    if (t.is_bool()) v = v != 0;
    return std::make_shared<IntImmNode>(t, v, s);
}

Expr float_imm(double v, DataType t, Span s) {
    if (t == DataType::float32() && std::isfinite(v)) v = static_cast<float>(v);
    return std::make_shared<FloatImmNode>(t, v, s);
}

std::optional<int64_t> as_const_int(const Expr& e) {
    if (!e) return std::nullopt;
    if (auto* i = e->as<IntImmNode>()) return i->value;
    return std::nullopt;
}

// Integer constants count as floating constants too: callers asking for a float value of a
// trace-time number (e.g. `T.fill(buf, 0)`) should not have to care which one it was.
std::optional<double> as_const_float(const Expr& e) {
    if (!e) return std::nullopt;
    if (auto* f = e->as<FloatImmNode>()) return f->value;
    if (auto* i = e->as<IntImmNode>()) return static_cast<double>(i->value);
    return std::nullopt;
}

namespace {

int float_rank(DataType t) {
    if (t.code == DataType::Float && t.bits == 64) return 4;
    if (t.code == DataType::Float && t.bits == 32) return 3;
    if (t.code == DataType::Float || t.code == DataType::BFloat) return 2;
    return 1;  // fp8
}

bool is_const(const Expr& e) { return e && (e->as<IntImmNode>() || e->as<FloatImmNode>()); }

// Wraps an integer value to the width of t (two's complement), as the GPU would.
int64_t wrap_int(int64_t v, DataType t) {
    if (t.is_bool()) return v != 0;
    if (t.bits >= 64) return v;
    uint64_t mask = (uint64_t(1) << t.bits) - 1;
    uint64_t u = static_cast<uint64_t>(v) & mask;
    if (t.code == DataType::UInt) return static_cast<int64_t>(u);
    uint64_t sign = uint64_t(1) << (t.bits - 1);
    return static_cast<int64_t>((u ^ sign) - sign);
}

int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}
int64_t floor_mod(int64_t a, int64_t b) { return a - floor_div(a, b) * b; }

bool is_logical(BinaryOp op) { return op == BinaryOp::And || op == BinaryOp::Or; }

// True when the integer constant c keeps its value in t. The "other operand's dtype wins"
// rule must not apply to a constant that does not fit: `i < 4294967552` with an int32 `i`
// would otherwise compare against 256 (silently wrong code); such a constant widens instead.
bool fits(const Expr& c, DataType t) {
    auto* i = c->as<IntImmNode>();
    if (!i || !t.is_int() || c->dtype.is_bool()) return true;
    return wrap_int(i->value, t) == i->value;
}

// The common dtype of a constant and a non-constant operand (see the rule at the top).
DataType common_with_const(const Expr& var, const Expr& con) {
    if (!var->dtype.is_float() && con->dtype.is_float()) return promote(var->dtype, con->dtype);
    if (!fits(con, var->dtype)) return promote(var->dtype, con->dtype);
    return var->dtype;
}

std::optional<Expr> fold_ints(BinaryOp op, int64_t x, int64_t y, DataType t, DataType result, Span s) {
    int64_t r = 0;
    switch (op) {
        case BinaryOp::Add: r = x + y; break;
        case BinaryOp::Sub: r = x - y; break;
        case BinaryOp::Mul: r = x * y; break;
        case BinaryOp::Div: if (y == 0) return std::nullopt; r = x / y; break;
        case BinaryOp::Mod: if (y == 0) return std::nullopt; r = x % y; break;
        case BinaryOp::FloorDiv: if (y == 0) return std::nullopt; r = floor_div(x, y); break;
        case BinaryOp::FloorMod: if (y == 0) return std::nullopt; r = floor_mod(x, y); break;
        case BinaryOp::Min: r = std::min(x, y); break;
        case BinaryOp::Max: r = std::max(x, y); break;
        case BinaryOp::EQ: r = x == y; break;
        case BinaryOp::NE: r = x != y; break;
        case BinaryOp::LT: r = x < y; break;
        case BinaryOp::LE: r = x <= y; break;
        case BinaryOp::GT: r = x > y; break;
        case BinaryOp::GE: r = x >= y; break;
        case BinaryOp::And: r = (x != 0) && (y != 0); break;
        case BinaryOp::Or: r = (x != 0) || (y != 0); break;
        case BinaryOp::BitAnd: r = x & y; break;
        case BinaryOp::BitOr: r = x | y; break;
        case BinaryOp::BitXor: r = x ^ y; break;
        case BinaryOp::Shl: if (y < 0 || y >= 64) return std::nullopt; r = static_cast<int64_t>(static_cast<uint64_t>(x) << y); break;
        case BinaryOp::Shr: if (y < 0 || y >= 64) return std::nullopt; r = x >> y; break;
    }
    (void)t;
    return int_imm(wrap_int(r, result), result, s);
}

std::optional<Expr> fold_floats(BinaryOp op, double x, double y, DataType result, Span s) {
    double r = 0;
    switch (op) {
        case BinaryOp::Add: r = x + y; break;
        case BinaryOp::Sub: r = x - y; break;
        case BinaryOp::Mul: r = x * y; break;
        case BinaryOp::Div: if (y == 0) return std::nullopt; r = x / y; break;
        case BinaryOp::Min: r = std::min(x, y); break;
        case BinaryOp::Max: r = std::max(x, y); break;
        case BinaryOp::EQ: return int_imm(x == y, DataType::boolean(), s);
        case BinaryOp::NE: return int_imm(x != y, DataType::boolean(), s);
        case BinaryOp::LT: return int_imm(x < y, DataType::boolean(), s);
        case BinaryOp::LE: return int_imm(x <= y, DataType::boolean(), s);
        case BinaryOp::GT: return int_imm(x > y, DataType::boolean(), s);
        case BinaryOp::GE: return int_imm(x >= y, DataType::boolean(), s);
        default: return std::nullopt;
    }
    return float_imm(r, result, s);
}

}  // namespace

DataType promote(DataType a, DataType b) {
    if (a == b) return a;
    if (a.is_void()) return b;
    if (b.is_void()) return a;
    if (a.is_float() || b.is_float()) {
        if (!b.is_float()) return a;
        if (!a.is_float()) return b;
        int ra = float_rank(a), rb = float_rank(b);
        if (ra != rb) return ra > rb ? a : b;
        return DataType::float32();  // float16 with bfloat16 (or two fp8 kinds): no common narrow type
    }
    if (a.is_bool()) return b.is_bool() ? a : b;
    if (b.is_bool()) return a;
    if (a.bits != b.bits) return a.bits > b.bits ? a : b;
    return a.code == DataType::UInt ? a : b;
}

Expr make_cast(DataType t, Expr v, Span s) {
    if (!v || v->dtype == t) return v;
    if (!s.valid()) s = v->span;
    if (auto* i = v->as<IntImmNode>()) {
        if (t.is_float()) return float_imm(static_cast<double>(i->value), t, s);
        if (t.is_int() || t.is_bool()) return int_imm(wrap_int(i->value, t), t, s);
    }
    if (auto* f = v->as<FloatImmNode>()) {
        if (t.is_float()) return float_imm(f->value, t, s);
        if (t.is_bool()) return int_imm(f->value != 0.0, t, s);
        if (t.is_int() && std::isfinite(f->value)) return int_imm(wrap_int(static_cast<int64_t>(f->value), t), t, s);
    }
    return std::make_shared<CastNode>(t, std::move(v), s);
}

Expr make_binary(BinaryOp op, Expr a, Expr b, Span s) {
    DataType common;
    bool ca = is_const(a), cb = is_const(b);
    if (ca != cb) {
        const Expr& var = ca ? b : a;
        const Expr& con = ca ? a : b;
        common = common_with_const(var, con);
        if (common.is_bool() && !is_logical(op) && !con->dtype.is_bool()) common = con->dtype;
    } else {
        common = promote(a->dtype, b->dtype);
    }
    if (is_logical(op)) common = DataType::boolean();
    // Bool arithmetic happens in int32, as in C.
    if (common.is_bool() && !is_logical(op) && op != BinaryOp::EQ && op != BinaryOp::NE &&
        op != BinaryOp::BitAnd && op != BinaryOp::BitOr && op != BinaryOp::BitXor)
        common = DataType::int32();
    a = make_cast(common, std::move(a), {});
    b = make_cast(common, std::move(b), {});
    DataType result = (is_comparison(op) || is_logical(op)) ? DataType::boolean() : common;

    auto ia = as_const_int(a), ib = as_const_int(b);
    if (ia && ib) {
        if (auto r = fold_ints(op, *ia, *ib, common, result, s)) return *r;
    }
    auto* fa = a->as<FloatImmNode>();
    auto* fb = b->as<FloatImmNode>();
    // Fold floats only where the host double result equals the device result after rounding.
    if (fa && fb && (common == DataType::float32() || common == DataType::float64())) {
        if (auto r = fold_floats(op, fa->value, fb->value, result, s)) return *r;
    }
    if (common.is_int()) {
        switch (op) {
            case BinaryOp::Add:
                if (ib == 0) return a;
                if (ia == 0) return b;
                break;
            case BinaryOp::Sub:
                if (ib == 0) return a;
                break;
            case BinaryOp::Mul:
                if (ib == 1) return a;
                if (ia == 1) return b;
                if (ib == 0 || ia == 0) return int_imm(0, result, s);
                break;
            case BinaryOp::Div:
            case BinaryOp::FloorDiv:
                if (ib == 1) return a;
                break;
            case BinaryOp::Mod:
            case BinaryOp::FloorMod:
                if (ib == 1) return int_imm(0, result, s);
                break;
            default: break;
        }
    } else if (common.is_float()) {
        if ((op == BinaryOp::Mul || op == BinaryOp::Div) && fb && fb->value == 1.0) return a;
        if (op == BinaryOp::Mul && fa && fa->value == 1.0) return b;
    }
    if (is_logical(op)) {
        // true && x -> x, false && x -> false, true || x -> true, false || x -> x
        if (ia) return (op == BinaryOp::And) == (*ia != 0) ? b : a;
        if (ib) return (op == BinaryOp::And) == (*ib != 0) ? a : b;
    }
    return std::make_shared<BinaryNode>(op, std::move(a), std::move(b), result, s);
}

Expr make_unary(UnaryOp op, Expr a, Span s) {
    if (op == UnaryOp::Not) {
        if (a->dtype != DataType::boolean()) a = make_binary(BinaryOp::NE, a, int_imm(0, a->dtype), s);
        if (auto c = as_const_int(a)) return int_imm(*c == 0, DataType::boolean(), s);
        if (auto* u = a->as<UnaryNode>(); u && u->op == UnaryOp::Not) return u->a;
        return std::make_shared<UnaryNode>(op, std::move(a), DataType::boolean(), s);
    }
    if (op == UnaryOp::Neg) {
        if (auto* i = a->as<IntImmNode>(); i && !a->dtype.is_bool()) return int_imm(wrap_int(-i->value, a->dtype), a->dtype, s);
        if (auto* f = a->as<FloatImmNode>()) return float_imm(-f->value, a->dtype, s);
        if (auto* u = a->as<UnaryNode>(); u && u->op == UnaryOp::Neg) return u->a;
    }
    if (op == UnaryOp::BitNot) {
        if (auto* i = a->as<IntImmNode>(); i && a->dtype.is_int()) return int_imm(wrap_int(~i->value, a->dtype), a->dtype, s);
    }
    DataType t = a->dtype.is_bool() ? DataType::int32() : a->dtype;
    a = make_cast(t, std::move(a));
    return std::make_shared<UnaryNode>(op, std::move(a), t, s);
}

Expr make_select(Expr c, Expr t, Expr f, Span s) {
    if (c->dtype != DataType::boolean()) c = make_binary(BinaryOp::NE, c, int_imm(0, c->dtype), s);
    DataType common;
    bool ct = is_const(t), cf = is_const(f);
    if (ct != cf) {
        const Expr& var = ct ? f : t;
        const Expr& con = ct ? t : f;
        common = common_with_const(var, con);
    } else {
        common = promote(t->dtype, f->dtype);
    }
    t = make_cast(common, std::move(t));
    f = make_cast(common, std::move(f));
    if (auto k = as_const_int(c)) return *k ? t : f;
    return std::make_shared<SelectNode>(std::move(c), std::move(t), std::move(f), common, s);
}

Expr make_call(std::string op, std::vector<Expr> args, DataType t, Span s) {
    return std::make_shared<CallNode>(std::move(op), std::move(args), t, s);
}

void flatten_seq(const Stmt& s, std::vector<Stmt>& out) {
    if (!s) return;
    if (auto* q = s->as<SeqStmtNode>()) {
        for (const auto& c : q->seq) flatten_seq(c, out);
        return;
    }
    out.push_back(s);
}

bool needs_linear_grid(const std::vector<Expr>& grid) {
    for (size_t i = 1; i < grid.size(); ++i)
        if (auto c = as_const_int(grid[i]); c && *c > 65535) return true;
    return false;
}

Stmt make_seq(std::vector<Stmt> stmts, Span s) {
    std::vector<Stmt> flat;
    auto add = [&](auto&& self, const Stmt& st) -> void {
        if (!st) return;
        if (auto* seq = st->as<SeqStmtNode>()) {
            for (const auto& inner : seq->seq) self(self, inner);
        } else {
            flat.push_back(st);
        }
    };
    for (const auto& st : stmts) add(add, st);
    if (flat.size() == 1) return flat[0];
    return std::make_shared<SeqStmtNode>(std::move(flat), s);
}

}  // namespace tp::ir
