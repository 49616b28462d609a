// Prints Tile IR as TileLang-like Python text (`tilec compile --emit=ir`, `--print-after`):
// `for i, j in T.Parallel(128, 128):`, `T.copy(A[by * 128:by * 128 + 128, 0:32], A_shared[0:128, 0:32])`,
// allocations with their scope, shape and dtype. Also the small name tables of ir.h.
#include <cmath>
#include <cstdio>
#include <sstream>

#include "ir/ir.h"

namespace tp::ir {

const char* node_kind_name(NodeKind k) {
    switch (k) {
#define IR_EXPR(Name) case NodeKind::Name: return #Name;
#define IR_STMT(Name) case NodeKind::Name: return #Name;
#include "ir/ir_nodes.def"
    }
    return "?";
}

const char* binary_op_name(BinaryOp op) {
    switch (op) {
        case BinaryOp::Add: return "+";
        case BinaryOp::Sub: return "-";
        case BinaryOp::Mul: return "*";
        case BinaryOp::Div: return "/";
        case BinaryOp::Mod: return "%";
        case BinaryOp::FloorDiv: return "//";
        case BinaryOp::FloorMod: return "floormod";
        case BinaryOp::Min: return "min";
        case BinaryOp::Max: return "max";
        case BinaryOp::EQ: return "==";
        case BinaryOp::NE: return "!=";
        case BinaryOp::LT: return "<";
        case BinaryOp::LE: return "<=";
        case BinaryOp::GT: return ">";
        case BinaryOp::GE: return ">=";
        case BinaryOp::And: return "&&";
        case BinaryOp::Or: return "||";
        case BinaryOp::BitAnd: return "&";
        case BinaryOp::BitOr: return "|";
        case BinaryOp::BitXor: return "^";
        case BinaryOp::Shl: return "<<";
        case BinaryOp::Shr: return ">>";
    }
    return "?";
}

bool is_comparison(BinaryOp op) {
    return op == BinaryOp::EQ || op == BinaryOp::NE || op == BinaryOp::LT || op == BinaryOp::LE ||
           op == BinaryOp::GT || op == BinaryOp::GE;
}

const char* scope_name(Scope s) {
    switch (s) {
        case Scope::Global: return "global";
        case Scope::Shared: return "shared";
        case Scope::Fragment: return "fragment";
        case Scope::Local: return "local";
        case Scope::Var: return "var";
        case Scope::Barrier:
            return "barrier";
    }
    return "?";
}

const char* barrier_kind_name(BarrierKind k) {
    switch (k) {
        case BarrierKind::Arrive:
            return "mbarrier_arrive";
        case BarrierKind::Wait:
            return "mbarrier_wait_parity";
        case BarrierKind::ExpectTx:
            return "mbarrier_expect_tx";
        case BarrierKind::ArriveExpectTx:
            return "mbarrier_arrive_expect_tx";
    }
    return "?";
}

const char* for_kind_name(ForKind k) {
    switch (k) {
        case ForKind::Serial: return "serial";
        case ForKind::Unrolled: return "unroll";
        case ForKind::Parallel: return "Parallel";
        case ForKind::Pipelined: return "Pipelined";
        case ForKind::Vectorized: return "vectorized";
    }
    return "?";
}

const char* gemm_policy_name(GemmWarpPolicy p) {
    switch (p) {
        case GemmWarpPolicy::Square: return "Square";
        case GemmWarpPolicy::FullRow: return "FullRow";
        case GemmWarpPolicy::FullCol: return "FullCol";
    }
    return "?";
}

const char* reduce_kind_name(ReduceKind k) {
    switch (k) {
        case ReduceKind::Max: return "max";
        case ReduceKind::Sum: return "sum";
        case ReduceKind::Min: return "min";
        case ReduceKind::AbsSum: return "abssum";
        case ReduceKind::AbsMax: return "absmax";
    }
    return "?";
}

namespace {

// Python operator precedence, higher binds tighter.
int precedence(BinaryOp op) {
    switch (op) {
        case BinaryOp::Or: return 1;
        case BinaryOp::And: return 2;
        case BinaryOp::EQ: case BinaryOp::NE: case BinaryOp::LT:
        case BinaryOp::LE: case BinaryOp::GT: case BinaryOp::GE: return 4;
        case BinaryOp::BitOr: return 5;
        case BinaryOp::BitXor: return 6;
        case BinaryOp::BitAnd: return 7;
        case BinaryOp::Shl: case BinaryOp::Shr: return 8;
        case BinaryOp::Add: case BinaryOp::Sub: return 9;
        case BinaryOp::Mul: case BinaryOp::Div: case BinaryOp::FloorDiv:
        case BinaryOp::FloorMod: return 10;
        default: return 13;  // printed as a call
    }
}
constexpr int kUnaryPrec = 11;
constexpr int kAtomPrec = 13;

std::string float_text(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (std::isnan(v)) return "nan";
    char buf[64];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return s;
}

std::string quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (c == '\n') { out += "\\n"; continue; }
        out += c;
    }
    return out + "\"";
}

std::string expr_text(const Expr& e, int parent_prec);

std::string call_text(const std::string& fn, const std::vector<Expr>& args) {
    std::string s = fn + "(";
    for (size_t i = 0; i < args.size(); ++i) s += (i ? ", " : "") + expr_text(args[i], 0);
    return s + ")";
}

std::string binary_text(const BinaryNode& b, int parent_prec) {
    bool int_div = b.dtype.is_int() || (b.a && b.a->dtype.is_int());
    switch (b.op) {
        case BinaryOp::Min: return call_text("T.min", {b.a, b.b});
        case BinaryOp::Max: return call_text("T.max", {b.a, b.b});
        case BinaryOp::Mod: return call_text("T.truncmod", {b.a, b.b});
        case BinaryOp::Div: if (int_div) return call_text("T.truncdiv", {b.a, b.b}); break;
        default: break;
    }
    const char* sym = nullptr;
    switch (b.op) {
        case BinaryOp::And: sym = "and"; break;
        case BinaryOp::Or: sym = "or"; break;
        case BinaryOp::FloorMod: sym = "%"; break;
        default: sym = binary_op_name(b.op);
    }
    int p = precedence(b.op);
    // Comparisons chain in Python, so both sides of one need parentheses when they compare too.
    int right_prec = p + 1;
    int left_prec = is_comparison(b.op) ? p + 1 : p;
    std::string s = expr_text(b.a, left_prec) + " " + sym + " " + expr_text(b.b, right_prec);
    return p < parent_prec ? "(" + s + ")" : s;
}

std::string expr_text(const Expr& e, int parent_prec) {
    if (!e) return "None";
    switch (e->kind) {
        case NodeKind::IntImm: {
            auto& n = static_cast<const IntImmNode&>(*e);
            if (n.dtype.is_bool()) return n.value ? "True" : "False";
            std::string v = std::to_string(n.value);
            if (n.dtype != DataType::int32()) return "T." + n.dtype.name() + "(" + v + ")";
            return n.value < 0 && parent_prec > kUnaryPrec ? "(" + v + ")" : v;
        }
        case NodeKind::FloatImm: {
            auto& n = static_cast<const FloatImmNode&>(*e);
            if (std::isinf(n.value))
                return std::string(n.value < 0 ? "-" : "") + "T.infinity(" + quote(n.dtype.name()) + ")";
            std::string v = float_text(n.value);
            if (n.dtype != DataType::float32()) return "T." + n.dtype.name() + "(" + v + ")";
            return n.value < 0 && parent_prec > kUnaryPrec ? "(" + v + ")" : v;
        }
        case NodeKind::StringImm: return quote(static_cast<const StringImmNode&>(*e).value);
        case NodeKind::Var: return static_cast<const VarNode&>(*e).name;
        case NodeKind::Binary: return binary_text(static_cast<const BinaryNode&>(*e), parent_prec);
        case NodeKind::Unary: {
            auto& n = static_cast<const UnaryNode&>(*e);
            std::string s;
            int p = kUnaryPrec;
            if (n.op == UnaryOp::Not) { s = "not " + expr_text(n.a, 3); p = 3; }
            else s = std::string(n.op == UnaryOp::Neg ? "-" : "~") + expr_text(n.a, kUnaryPrec);
            return p < parent_prec ? "(" + s + ")" : s;
        }
        case NodeKind::Cast: {
            auto& n = static_cast<const CastNode&>(*e);
            return "T.Cast(" + quote(n.dtype.name()) + ", " + expr_text(n.value, 0) + ")";
        }
        case NodeKind::Select: {
            auto& n = static_cast<const SelectNode&>(*e);
            return call_text("T.if_then_else", {n.cond, n.true_value, n.false_value});
        }
        case NodeKind::BufferLoad: {
            auto& n = static_cast<const BufferLoadNode&>(*e);
            std::string s = n.buffer->name + "[";
            for (size_t i = 0; i < n.indices.size(); ++i) s += (i ? ", " : "") + expr_text(n.indices[i], 0);
            return s + "]";
        }
        case NodeKind::Call: {
            auto& n = static_cast<const CallNode&>(*e);
            return call_text("T." + n.op, n.args);
        }
        default: break;
    }
    (void)kAtomPrec;
    return std::string("<") + node_kind_name(e->kind) + ">";
}

std::string shape_text(const std::vector<Expr>& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + expr_text(shape[i], 0);
    if (shape.size() == 1) s += ",";
    return s + ")";
}

}  // namespace

std::string print(const Expr& e) { return expr_text(e, 0); }

// Statement printing lives in printer_stmt.cpp; these two helpers are shared with it.
std::string print_shape(const std::vector<Expr>& shape) { return shape_text(shape); }
std::string print_quoted(const std::string& s) { return quote(s); }

}  // namespace tp::ir
