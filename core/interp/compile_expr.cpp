// Expressions of the interpreter: each IR expression becomes a closure that evaluates as an
// int64 (integers, bools, indices) or a double rounded to the expression's dtype.
#include <atomic>
#include <cmath>
#include <limits>

#include "interp/program.h"
#include "interp/race_check.h"

namespace tp::interp {

namespace {

using ir::BinaryOp;
using ir::DataType;

int64_t wrap(int64_t v, DataType t) {
    if (t.is_bool()) return v != 0;
    if (t.bits >= 64) return v;
    uint64_t mask = (uint64_t(1) << t.bits) - 1;
    uint64_t u = static_cast<uint64_t>(v) & mask;
    if (t.code == DataType::UInt) return static_cast<int64_t>(u);
    uint64_t sign = uint64_t(1) << (t.bits - 1);
    return static_cast<int64_t>((u ^ sign) - sign);
}

int64_t to_int(double v) {
    if (!(v == v)) return 0;
    if (v >= 9.2e18) return std::numeric_limits<int64_t>::max();
    if (v <= -9.2e18) return std::numeric_limits<int64_t>::min();
    return static_cast<int64_t>(v);
}

// Base for expressions whose natural value is an integer.
struct IntExpr : CExpr {
    double f(Frame& fr) const override { return static_cast<double>(i(fr)); }
};
// Base for expressions whose natural value is floating.
struct FloatExpr : CExpr {
    int64_t i(Frame& fr) const override { return to_int(f(fr)); }
};

struct IntConst : IntExpr {
    int64_t v;
    explicit IntConst(int64_t x) : v(x) {}
    int64_t i(Frame&) const override { return v; }
};
struct FloatConst : FloatExpr {
    double v;
    explicit FloatConst(double x) : v(x) {}
    double f(Frame&) const override { return v; }
};
struct IntVar : IntExpr {
    int slot;
    explicit IntVar(int s) : slot(s) {}
    int64_t i(Frame& fr) const override { return fr.ivars[static_cast<size_t>(slot)]; }
};
struct FloatVar : FloatExpr {
    int slot;
    explicit FloatVar(int s) : slot(s) {}
    double f(Frame& fr) const override { return fr.fvars[static_cast<size_t>(slot)]; }
};

struct IntBinary : IntExpr {
    BinaryOp op;
    CExprP a, b;
    int64_t i(Frame& fr) const override {
        if (op == BinaryOp::And) return a->i(fr) != 0 && b->i(fr) != 0;
        if (op == BinaryOp::Or) return a->i(fr) != 0 || b->i(fr) != 0;
        int64_t x = a->i(fr), y = b->i(fr);
        int64_t r = 0;
        auto divisor_check = [&] {
            if (y == 0) throw_diag(fr, DiagKind::IntegerDivisionByZero, span, {block_text(fr)});
        };
        switch (op) {
            case BinaryOp::Add:
                r = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
                break;
            case BinaryOp::Sub:
                r = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
                break;
            case BinaryOp::Mul:
                r = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
                break;
            case BinaryOp::Div:
                divisor_check();
                r = x / y;
                break;
            case BinaryOp::Mod:
                divisor_check();
                r = x % y;
                break;
            case BinaryOp::FloorDiv: {
                divisor_check();
                r = x / y;
                if ((x % y != 0) && ((x < 0) != (y < 0))) --r;
                break;
            }
            case BinaryOp::FloorMod: {
                divisor_check();
                int64_t q = x / y;
                if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
                r = x - q * y;
                break;
            }
            case BinaryOp::Min:
                r = x < y ? x : y;
                break;
            case BinaryOp::Max:
                r = x > y ? x : y;
                break;
            case BinaryOp::EQ:
                return x == y;
            case BinaryOp::NE:
                return x != y;
            case BinaryOp::LT:
                return x < y;
            case BinaryOp::LE:
                return x <= y;
            case BinaryOp::GT:
                return x > y;
            case BinaryOp::GE:
                return x >= y;
            case BinaryOp::BitAnd:
                r = x & y;
                break;
            case BinaryOp::BitOr:
                r = x | y;
                break;
            case BinaryOp::BitXor:
                r = x ^ y;
                break;
            case BinaryOp::Shl:
                r = static_cast<int64_t>(static_cast<uint64_t>(x) << (y & 63));
                break;
            case BinaryOp::Shr:
                r = x >> (y & 63);
                break;
            default:
                break;
        }
        return wrap(r, dtype);
    }
};

// Comparisons and logic on floating operands produce a bool.
struct FloatCompare : IntExpr {
    BinaryOp op;
    CExprP a, b;
    int64_t i(Frame& fr) const override {
        double x = a->f(fr), y = b->f(fr);
        switch (op) {
            case BinaryOp::EQ:
                return x == y;
            case BinaryOp::NE:
                return x != y;
            case BinaryOp::LT:
                return x < y;
            case BinaryOp::LE:
                return x <= y;
            case BinaryOp::GT:
                return x > y;
            case BinaryOp::GE:
                return x >= y;
            case BinaryOp::And:
                return x != 0 && y != 0;
            case BinaryOp::Or:
                return x != 0 || y != 0;
            default:
                return 0;
        }
    }
};

struct FloatBinary : FloatExpr {
    BinaryOp op;
    CExprP a, b;
    double f(Frame& fr) const override {
        double x = a->f(fr), y = b->f(fr), r = 0;
        switch (op) {
            case BinaryOp::Add:
                r = x + y;
                break;
            case BinaryOp::Sub:
                r = x - y;
                break;
            case BinaryOp::Mul:
                r = x * y;
                break;
            case BinaryOp::Div:
                r = x / y;
                break;
            case BinaryOp::Mod:
                r = std::fmod(x, y);
                break;
            case BinaryOp::FloorDiv:
                r = std::floor(x / y);
                break;
            case BinaryOp::FloorMod:
                r = x - std::floor(x / y) * y;
                break;
            case BinaryOp::Min:
                r = std::fmin(x, y);
                break;
            case BinaryOp::Max:
                r = std::fmax(x, y);
                break;
            default:
                r = 0;
                break;
        }
        return round_value(r, dtype);
    }
};

struct IntUnary : IntExpr {
    ir::UnaryOp op;
    CExprP a;
    int64_t i(Frame& fr) const override {
        int64_t x = a->i(fr);
        switch (op) {
            case ir::UnaryOp::Neg:
                return wrap(static_cast<int64_t>(0 - static_cast<uint64_t>(x)), dtype);
            case ir::UnaryOp::Not:
                return x == 0;
            case ir::UnaryOp::BitNot:
                return wrap(~x, dtype);
        }
        return 0;
    }
};
struct FloatNeg : FloatExpr {
    CExprP a;
    double f(Frame& fr) const override { return -a->f(fr); }
};
struct FloatNot : IntExpr {
    CExprP a;
    int64_t i(Frame& fr) const override { return a->f(fr) == 0; }
};

struct CastToInt : IntExpr {
    CExprP a;
    int64_t i(Frame& fr) const override {
        if (dtype.is_bool()) return a->dtype.is_float() ? a->f(fr) != 0 : a->i(fr) != 0;
        return wrap(a->dtype.is_float() ? to_int(a->f(fr)) : a->i(fr), dtype);
    }
};
struct CastToFloat : FloatExpr {
    CExprP a;
    double f(Frame& fr) const override { return round_value(a->f(fr), dtype); }
};

// Evaluates only the chosen branch, so a guarded out-of-range load is never performed.
struct SelectExpr : CExpr {
    CExprP c, t, e;
    int64_t i(Frame& fr) const override { return c->i(fr) ? t->i(fr) : e->i(fr); }
    double f(Frame& fr) const override { return c->i(fr) ? t->f(fr) : e->f(fr); }
};

struct Load : CExpr {
    const ir::BufferNode* buf;
    int slot;
    std::vector<CExprP> idx;
    double load(Frame& fr) const {
        int64_t ix[kMaxRank];
        int n = static_cast<int>(idx.size());
        for (int d = 0; d < n; ++d) ix[d] = idx[static_cast<size_t>(d)]->i(fr);
        const BufView& v = fr.bufs[static_cast<size_t>(slot)];
        return v.data[checked_flat(fr, span, "read", *buf, v, ix, n)];
    }
    int64_t i(Frame& fr) const override { return to_int(load(fr)); }
    double f(Frame& fr) const override { return load(fr); }
};

// --check-races: a shared-memory read that tells the checker which thread reads which element.
struct CheckedLoad : Load {
    double checked(Frame& fr) const {
        int64_t ix[kMaxRank];
        int n = static_cast<int>(idx.size());
        for (int d = 0; d < n; ++d) ix[d] = idx[static_cast<size_t>(d)]->i(fr);
        const BufView& v = fr.bufs[static_cast<size_t>(slot)];
        const int64_t flat = checked_flat(fr, span, "read", *buf, v, ix, n);
        if (fr.races) race_read(fr, slot, flat, &span);
        return v.data[flat];
    }
    int64_t i(Frame& fr) const override { return to_int(checked(fr)); }
    double f(Frame& fr) const override { return checked(fr); }
};

// T.atomic_add(..., return_prev=True): adds to the element and returns what it held before,
// atomically as the block's worker threads may share a global tensor.
struct FetchAdd : CExpr {
    const ir::BufferNode* buf;
    int slot;
    std::vector<CExprP> idx;
    CExprP value;
    double fetch_add(Frame& fr) const {
        int64_t ix[kMaxRank];
        int n = static_cast<int>(idx.size());
        for (int d = 0; d < n; ++d) ix[d] = idx[static_cast<size_t>(d)]->i(fr);
        const double x = value->f(fr);
        BufView& v = fr.bufs[static_cast<size_t>(slot)];
        const int64_t flat = checked_flat(fr, span, "atomic add", *buf, v, ix, n);
        std::atomic_ref<double> a(v.data[flat]);
        double old = a.load(std::memory_order_relaxed);
        while (!a.compare_exchange_weak(old, round_value(old + x, buf->dtype), std::memory_order_relaxed)) {}
        if (v.written) std::atomic_ref<uint8_t>(v.written[flat]).store(1, std::memory_order_relaxed);
        return old;
    }
    int64_t i(Frame& fr) const override { return to_int(fetch_add(fr)); }
    double f(Frame& fr) const override { return fetch_add(fr); }
};

}  // namespace

CExprP compile_call(Program& p, const ir::CallNode& c, std::vector<CExprP> args);  // compile_call.cpp

CExprP compile_expr(Program& p, const ir::Expr& e) {
    TP_ICHECK(e != nullptr, "null expression in Tile IR");
    CExprP out;
    switch (e->kind) {
        case ir::NodeKind::IntImm:
            out = std::make_unique<IntConst>(e->as<ir::IntImmNode>()->value);
            break;
        case ir::NodeKind::FloatImm:
            // Rounded to its dtype, as the generated code writes it (`half_t(1.44269502f)`).
            out = std::make_unique<FloatConst>(round_value(e->as<ir::FloatImmNode>()->value, e->dtype));
            break;
        case ir::NodeKind::StringImm:
            out = std::make_unique<IntConst>(0);
            break;
        case ir::NodeKind::Var: {
            auto* v = e->as<ir::VarNode>();
            VarSlot s = p.slot_of(std::static_pointer_cast<const ir::VarNode>(e));
            (void)v;
            if (s.is_float)
                out = std::make_unique<FloatVar>(s.index);
            else
                out = std::make_unique<IntVar>(s.index);
            break;
        }
        case ir::NodeKind::Binary: {
            auto* b = e->as<ir::BinaryNode>();
            CExprP x = compile_expr(p, b->a), y = compile_expr(p, b->b);
            bool float_operands = x->dtype.is_float() || y->dtype.is_float();
            bool logic = ir::is_comparison(b->op) || b->op == BinaryOp::And || b->op == BinaryOp::Or;
            if (float_operands && logic) {
                auto n = std::make_unique<FloatCompare>();
                n->op = b->op, n->a = std::move(x), n->b = std::move(y);
                out = std::move(n);
            } else if (e->dtype.is_float()) {
                auto n = std::make_unique<FloatBinary>();
                n->op = b->op, n->a = std::move(x), n->b = std::move(y);
                out = std::move(n);
            } else {
                auto n = std::make_unique<IntBinary>();
                n->op = b->op, n->a = std::move(x), n->b = std::move(y);
                out = std::move(n);
            }
            break;
        }
        case ir::NodeKind::Unary: {
            auto* u = e->as<ir::UnaryNode>();
            CExprP x = compile_expr(p, u->a);
            if (x->dtype.is_float() && u->op == ir::UnaryOp::Neg) {
                auto n = std::make_unique<FloatNeg>();
                n->a = std::move(x);
                out = std::move(n);
            } else if (x->dtype.is_float() && u->op == ir::UnaryOp::Not) {
                auto n = std::make_unique<FloatNot>();
                n->a = std::move(x);
                out = std::move(n);
            } else {
                auto n = std::make_unique<IntUnary>();
                n->op = u->op, n->a = std::move(x);
                out = std::move(n);
            }
            break;
        }
        case ir::NodeKind::Cast: {
            CExprP x = compile_expr(p, e->as<ir::CastNode>()->value);
            if (e->dtype.is_float()) {
                auto n = std::make_unique<CastToFloat>();
                n->a = std::move(x);
                out = std::move(n);
            } else {
                auto n = std::make_unique<CastToInt>();
                n->a = std::move(x);
                out = std::move(n);
            }
            break;
        }
        case ir::NodeKind::Select: {
            auto* s = e->as<ir::SelectNode>();
            auto n = std::make_unique<SelectExpr>();
            n->c = compile_expr(p, s->cond);
            n->t = compile_expr(p, s->true_value);
            n->e = compile_expr(p, s->false_value);
            out = std::move(n);
            break;
        }
        case ir::NodeKind::BufferLoad: {
            auto* l = e->as<ir::BufferLoadNode>();
            std::unique_ptr<Load> n;
            if (p.check_races && l->buffer->scope == ir::Scope::Shared)
                n = std::make_unique<CheckedLoad>();
            else
                n = std::make_unique<Load>();
            n->buf = l->buffer.get();
            n->slot = p.buffer_slot(l->buffer);
            TP_ICHECK(l->indices.size() <= static_cast<size_t>(kMaxRank), "buffer rank above 8");
            for (const auto& i : l->indices) n->idx.push_back(compile_expr(p, i));
            out = std::move(n);
            break;
        }
        case ir::NodeKind::Call: {
            auto* c = e->as<ir::CallNode>();
            if (c->op == "atomic_add_prev" && c->args.size() == 2 && c->args[0]->as<ir::BufferLoadNode>()) {
                auto* l = c->args[0]->as<ir::BufferLoadNode>();
                auto n = std::make_unique<FetchAdd>();
                n->buf = l->buffer.get();
                n->slot = p.buffer_slot(l->buffer);
                for (const auto& i : l->indices) n->idx.push_back(compile_expr(p, i));
                n->value = compile_expr(p, c->args[1]);
                out = std::move(n);
                break;
            }
            std::vector<CExprP> args;
            // An extern call's pointer operands mean nothing here; compile_call refuses the call.
            if (c->op != "call_extern")
                for (const auto& a : c->args) args.push_back(compile_expr(p, a));
            out = compile_call(p, *c, std::move(args));
            break;
        }
        default:
            TP_ICHECK(false, std::string("not an expression node: ") + ir::node_kind_name(e->kind));
    }
    out->dtype = e->dtype;
    out->span = e->span;
    return out;
}

}  // namespace tp::interp
