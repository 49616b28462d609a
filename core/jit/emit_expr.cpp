// Expressions of the JIT, each the interpreter's semantics (core/interp/compile_expr.cpp,
// compile_call.cpp) in LLVM IR:
// float operations on f32 operands are done in f32 where that gives the double result rounded
// once (+ - * / min max), everything else in f64 and then rounded, so results are bitwise equal.
#include <llvm/IR/Intrinsics.h>

#include <cfloat>
#include <cmath>
#include <limits>

#include "jit/emit.h"
#include "tensor/tensor.h"

namespace tp::jit {

using ir::BinaryOp;
using ir::DataType;
using llvm::Value;

namespace {

bool small_float(DataType t) { return t.is_float() && t.bits <= 32; }

double dtype_max(DataType t) {
    switch (t.code) {
        case DataType::Float:
            return t.bits == 16 ? 65504.0 : t.bits == 32 ? FLT_MAX : DBL_MAX;
        case DataType::BFloat:
            return bf16_bits_to_double(0x7F7F);
        case DataType::Int:
            return std::ldexp(1.0, t.bits - 1) - 1;
        case DataType::UInt:
            return std::ldexp(1.0, t.bits) - 1;
        case DataType::Bool:
            return 1;
        case DataType::Float8E4M3:
            return fp8_e4m3_bits_to_double(0x7E);
        case DataType::Float8E5M2:
            return fp8_e5m2_bits_to_double(0x7B);
        default:
            return 0;
    }
}

}  // namespace

// The interpreter's expression kinds, one function each.
struct ExprEmitter {
    Emitter& e;
    llvm::IRBuilder<>& b;

    Value* fconst(double v, DataType t) { return e.value_type(t) == e.f64 ? llvm::ConstantFP::get(e.f64, v) : llvm::ConstantFP::get(e.f32, v); }
    // A value as the interpreter's CExpr::f would give it, in double.
    Value* dbl(const ir::Expr& x) { return e.to_double(e.expr(x), x->dtype); }
    // ... and as CExpr::i would (floats through to_int).
    Value* integer(const ir::Expr& x) {
        Value* v = e.expr(x);
        if (!x->dtype.is_float()) return v;
        return e.call_intrinsic(llvm::Intrinsic::fptosi_sat, e.i64, {e.to_double(v, x->dtype)});
    }

    Value* binary(const ir::BinaryNode& n, DataType t) {
        const bool fops = n.a->dtype.is_float() || n.b->dtype.is_float();
        const bool logic = ir::is_comparison(n.op) || n.op == BinaryOp::And || n.op == BinaryOp::Or;
        if (fops && logic) return float_compare(n);
        if (t.is_float()) return float_binary(n, t);
        return int_binary(n, t);
    }

    Value* float_compare(const ir::BinaryNode& n) {
        Value *x = dbl(n.a), *y = dbl(n.b), *r = nullptr;
        auto zero = llvm::ConstantFP::get(e.f64, 0.0);
        switch (n.op) {
            case BinaryOp::EQ:
                r = b.CreateFCmpOEQ(x, y);
                break;
            case BinaryOp::NE:
                r = b.CreateFCmpUNE(x, y);
                break;
            case BinaryOp::LT:
                r = b.CreateFCmpOLT(x, y);
                break;
            case BinaryOp::LE:
                r = b.CreateFCmpOLE(x, y);
                break;
            case BinaryOp::GT:
                r = b.CreateFCmpOGT(x, y);
                break;
            case BinaryOp::GE:
                r = b.CreateFCmpOGE(x, y);
                break;
            case BinaryOp::And:
                r = b.CreateAnd(b.CreateFCmpUNE(x, zero), b.CreateFCmpUNE(y, zero));
                break;
            case BinaryOp::Or:
                r = b.CreateOr(b.CreateFCmpUNE(x, zero), b.CreateFCmpUNE(y, zero));
                break;
            default:
                r = b.getFalse();
                break;
        }
        return b.CreateZExt(r, e.i64);
    }

    Value* float_binary(const ir::BinaryNode& n, DataType t) {
        const bool simple = n.op == BinaryOp::Add || n.op == BinaryOp::Sub || n.op == BinaryOp::Mul || n.op == BinaryOp::Div ||
                            n.op == BinaryOp::Min || n.op == BinaryOp::Max;
        // f32 arithmetic on f32-exact operands is the double result rounded once to f32, and
        // rounding that to fp16/bf16 equals rounding the double (24 >= 2 * 11 + 2 bits).
        const bool in_f32 = simple && small_float(t) && small_float(n.a->dtype) && small_float(n.b->dtype);
        Value *x = in_f32 ? e.expr(n.a) : dbl(n.a), *y = in_f32 ? e.expr(n.b) : dbl(n.b), *r = nullptr;
        switch (n.op) {
            case BinaryOp::Add:
                r = b.CreateFAdd(x, y);
                break;
            case BinaryOp::Sub:
                r = b.CreateFSub(x, y);
                break;
            case BinaryOp::Mul:
                r = b.CreateFMul(x, y);
                break;
            case BinaryOp::Div:
                r = b.CreateFDiv(x, y);
                break;
            case BinaryOp::Mod:
                r = e.call_libm("fmod", {x, y});
                break;
            case BinaryOp::FloorDiv:
                r = e.call_intrinsic(llvm::Intrinsic::floor, e.f64, {b.CreateFDiv(x, y)});
                break;
            case BinaryOp::FloorMod: {
                Value* q = e.call_intrinsic(llvm::Intrinsic::floor, e.f64, {b.CreateFDiv(x, y)});
                r = b.CreateFSub(x, b.CreateFMul(q, y));
                break;
            }
            case BinaryOp::Min:
                r = e.call_intrinsic(llvm::Intrinsic::minnum, x->getType(), {x, y});
                break;
            case BinaryOp::Max:
                r = e.call_intrinsic(llvm::Intrinsic::maxnum, x->getType(), {x, y});
                break;
            default:
                r = llvm::ConstantFP::get(x->getType(), 0.0);
                break;
        }
        return e.round_to(r, t);
    }

    // Short-circuit && and || (the interpreter skips the right side, which may guard a load).
    Value* logic(const ir::BinaryNode& n) {
        const bool is_and = n.op == BinaryOp::And;
        Value* x = b.CreateICmpNE(integer(n.a), e.ci(0));
        llvm::BasicBlock* from = b.GetInsertBlock();
        llvm::BasicBlock* rhs = e.new_block("logic.rhs");
        llvm::BasicBlock* done = e.new_block("logic.done");
        if (is_and)
            b.CreateCondBr(x, rhs, done);
        else
            b.CreateCondBr(x, done, rhs);
        b.SetInsertPoint(rhs);
        Value* y = b.CreateICmpNE(integer(n.b), e.ci(0));
        llvm::BasicBlock* rhs_end = b.GetInsertBlock();
        b.CreateBr(done);
        b.SetInsertPoint(done);
        llvm::PHINode* phi = b.CreatePHI(e.i1, 2);
        phi->addIncoming(is_and ? b.getFalse() : b.getTrue(), from);
        phi->addIncoming(y, rhs_end);
        return b.CreateZExt(phi, e.i64);
    }

    Value* int_binary(const ir::BinaryNode& n, DataType t) {
        if (n.op == BinaryOp::And || n.op == BinaryOp::Or) return logic(n);
        Value *x = integer(n.a), *y = integer(n.b), *r = nullptr;
        auto cmp = [&](llvm::CmpInst::Predicate p) { return b.CreateZExt(b.CreateICmp(p, x, y), e.i64); };
        auto divisor = [&] {
            Value* z = b.CreateICmpEQ(y, e.ci(0));
            e.fault_if(z);
            return b.CreateSelect(z, e.ci(1), y);
        };
        switch (n.op) {
            case BinaryOp::Add:
                r = b.CreateAdd(x, y);
                break;
            case BinaryOp::Sub:
                r = b.CreateSub(x, y);
                break;
            case BinaryOp::Mul:
                r = b.CreateMul(x, y);
                break;
            case BinaryOp::Div:
                r = b.CreateSDiv(x, divisor());
                break;
            case BinaryOp::Mod:
                r = b.CreateSRem(x, divisor());
                break;
            case BinaryOp::FloorDiv:
            case BinaryOp::FloorMod: {
                Value* d = divisor();
                Value* q = b.CreateSDiv(x, d);
                Value* rem = b.CreateSRem(x, d);
                Value* adj = b.CreateAnd(b.CreateICmpNE(rem, e.ci(0)), b.CreateICmpNE(b.CreateICmpSLT(x, e.ci(0)), b.CreateICmpSLT(d, e.ci(0))));
                q = b.CreateSub(q, b.CreateZExt(adj, e.i64));
                r = n.op == BinaryOp::FloorDiv ? q : b.CreateSub(x, b.CreateMul(q, d));
                break;
            }
            case BinaryOp::Min:
                r = b.CreateSelect(b.CreateICmpSLT(x, y), x, y);
                break;
            case BinaryOp::Max:
                r = b.CreateSelect(b.CreateICmpSGT(x, y), x, y);
                break;
            case BinaryOp::EQ:
                return cmp(llvm::CmpInst::ICMP_EQ);
            case BinaryOp::NE:
                return cmp(llvm::CmpInst::ICMP_NE);
            case BinaryOp::LT:
                return cmp(llvm::CmpInst::ICMP_SLT);
            case BinaryOp::LE:
                return cmp(llvm::CmpInst::ICMP_SLE);
            case BinaryOp::GT:
                return cmp(llvm::CmpInst::ICMP_SGT);
            case BinaryOp::GE:
                return cmp(llvm::CmpInst::ICMP_SGE);
            case BinaryOp::BitAnd:
                r = b.CreateAnd(x, y);
                break;
            case BinaryOp::BitOr:
                r = b.CreateOr(x, y);
                break;
            case BinaryOp::BitXor:
                r = b.CreateXor(x, y);
                break;
            case BinaryOp::Shl:
                r = b.CreateShl(x, b.CreateAnd(y, e.ci(63)));
                break;
            case BinaryOp::Shr:
                r = b.CreateAShr(x, b.CreateAnd(y, e.ci(63)));
                break;
            default:
                r = e.ci(0);
                break;
        }
        return e.wrap(r, t);
    }

    Value* unary(const ir::UnaryNode& n, DataType t) {
        if (n.a->dtype.is_float() && n.op == ir::UnaryOp::Neg) return e.convert(b.CreateFNeg(e.expr(n.a)), n.a->dtype, t);
        if (n.a->dtype.is_float() && n.op == ir::UnaryOp::Not)
            return b.CreateZExt(b.CreateFCmpOEQ(dbl(n.a), llvm::ConstantFP::get(e.f64, 0.0)), e.i64);
        Value* x = integer(n.a);
        switch (n.op) {
            case ir::UnaryOp::Neg:
                return e.wrap(b.CreateSub(e.ci(0), x), t);
            case ir::UnaryOp::Not:
                return b.CreateZExt(b.CreateICmpEQ(x, e.ci(0)), e.i64);
            case ir::UnaryOp::BitNot:
                return e.wrap(b.CreateNot(x), t);
        }
        return e.ci(0);
    }

    Value* cast(const ir::CastNode& n, DataType t) {
        if (t.is_float()) return e.round_to(dbl(n.value), t);
        if (t.is_bool()) return e.convert(e.expr(n.value), n.value->dtype, t);
        return e.wrap(integer(n.value), t);
    }

    // Evaluates only the chosen side, like the interpreter (a guarded load is never done).
    Value* select(const ir::SelectNode& n, DataType t) {
        Value* c = e.truthy(n.cond);
        llvm::BasicBlock* tb = e.new_block("sel.t");
        llvm::BasicBlock* fb = e.new_block("sel.f");
        llvm::BasicBlock* done = e.new_block("sel.done");
        b.CreateCondBr(c, tb, fb);
        b.SetInsertPoint(tb);
        Value* tv = e.convert(e.expr(n.true_value), n.true_value->dtype, t);
        llvm::BasicBlock* tend = b.GetInsertBlock();
        b.CreateBr(done);
        b.SetInsertPoint(fb);
        Value* fv = e.convert(e.expr(n.false_value), n.false_value->dtype, t);
        llvm::BasicBlock* fend = b.GetInsertBlock();
        b.CreateBr(done);
        b.SetInsertPoint(done);
        llvm::PHINode* phi = b.CreatePHI(tv->getType(), 2);
        phi->addIncoming(tv, tend);
        phi->addIncoming(fv, fend);
        return phi;
    }

    Value* load(const ir::BufferLoadNode& n) {
        BufInfo& bi = e.buffer(n.buffer);
        std::vector<Value*> idx;
        for (const auto& i : n.indices) idx.push_back(integer(i));
        return e.load_elem(bi, e.flat_index(bi, idx));
    }

    Value* call(const ir::CallNode& c, DataType t) {
        const std::string& op = c.op;
        if (op == "infinity" || op == "max_value" || op == "min_value") {
            double v = op == "infinity"    ? (t.is_float() ? std::numeric_limits<double>::infinity() : dtype_max(t))
                       : op == "max_value" ? dtype_max(t)
                                           : (t.is_float()              ? -dtype_max(t)
                                              : t.code == DataType::Int ? -std::ldexp(1.0, t.bits - 1)
                                                                        : 0.0);
            if (t.is_float()) return fconst(v, t);
            return e.ci(std::isfinite(v) ? static_cast<int64_t>(v) : 0);
        }
        // iket_event changes no kernel data (interp/compile_call.cpp says why it is a no-op here).
        if (op == "__syncthreads" || op == "named_barrier" || op == "fence_proxy_async" || op == "iket_event") return e.ci(0);
        if (op == "atomic_add_prev" && c.args.size() == 2) return e.atomic_add_prev(c);
        if (op == "reinterpret" && c.args.size() == 1) return e.reinterpret(c);
        if (op == "warp_shuffle") return e.warp_shuffle(c);
        // User CUDA (its pointer operands are address_of calls); the interpreter says why at its line.
        if (op == "call_extern" || op == "address_of") throw Reject{"`T.call_extern`"};
        std::vector<Value*> a;
        for (const auto& x : c.args) a.push_back(dbl(x));
        auto one = [&](const char* name) { return e.call_libm(name, {a.at(0)}); };
        auto intr = [&](llvm::Intrinsic::ID id) { return e.call_intrinsic(id, e.f64, a); };
        Value* r = nullptr;
        auto d = [&](double v) { return llvm::ConstantFP::get(e.f64, v); };
        if (op == "exp")
            r = one("exp");
        else if (op == "exp2")
            r = one("exp2");
        else if (op == "exp10")
            r = e.call_libm("pow", {d(10.0), a.at(0)});
        else if (op == "log")
            r = one("log");
        else if (op == "log2")
            r = one("log2");
        else if (op == "log10")
            r = one("log10");
        else if (op == "rsqrt")
            r = b.CreateFDiv(d(1.0), intr(llvm::Intrinsic::sqrt));
        else if (op == "sqrt")
            r = intr(llvm::Intrinsic::sqrt);
        else if (op == "abs")
            r = intr(llvm::Intrinsic::fabs);
        else if (op == "tanh")
            r = one("tanh");
        else if (op == "erf")
            r = one("erf");
        else if (op == "gelu_erf")
            r = b.CreateFMul(b.CreateFMul(d(0.5), a.at(0)), e.call_libm("erfc", {b.CreateFDiv(b.CreateFNeg(a.at(0)), d(std::sqrt(2.0)))}));
        else if (op == "sigmoid")
            r = b.CreateFDiv(d(1.0), b.CreateFAdd(d(1.0), e.call_libm("exp", {b.CreateFNeg(a.at(0))})));
        else if (op == "sin")
            r = one("sin");
        else if (op == "cos")
            r = one("cos");
        else if (op == "tan")
            r = one("tan");
        else if (op == "floor")
            r = intr(llvm::Intrinsic::floor);
        else if (op == "ceil")
            r = intr(llvm::Intrinsic::ceil);
        else if (op == "round")
            r = intr(llvm::Intrinsic::nearbyint);
        else if (op == "trunc")
            r = intr(llvm::Intrinsic::trunc);
        else if (op == "pow")
            r = e.call_libm("pow", {a.at(0), a.at(1)});
        else if (op == "fmod")
            r = e.call_libm("fmod", {a.at(0), a.at(1)});
        else if (op == "clamp")
            r = e.call_intrinsic(llvm::Intrinsic::minnum, e.f64, {e.call_intrinsic(llvm::Intrinsic::maxnum, e.f64, {a.at(0), a.at(1)}), a.at(2)});
        else if (op == "fma")
            r = e.call_intrinsic(llvm::Intrinsic::fma, e.f64, {a.at(0), a.at(1), a.at(2)});
        else if (op == "isnan")
            r = b.CreateUIToFP(b.CreateFCmpUNO(a.at(0), a.at(0)), e.f64);
        else if (op == "isinf")
            r = b.CreateUIToFP(b.CreateFCmpOEQ(intr(llvm::Intrinsic::fabs), d(std::numeric_limits<double>::infinity())), e.f64);
        else
            throw Reject{"`T." + op + "`"};
        return e.convert(r, DataType::float64(), t);
    }
};

Value* Emitter::expr(const ir::Expr& x) {
    ExprEmitter em{*this, b};
    const DataType t = x->dtype;
    switch (x->kind) {
        case ir::NodeKind::IntImm: {
            const int64_t v = x->as<ir::IntImmNode>()->value;
            if (t.is_float()) return em.fconst(round_to_dtype(static_cast<double>(v), t), t);
            value_type(t);
            return ci(v);
        }
        case ir::NodeKind::FloatImm: {
            const double v = round_to_dtype(x->as<ir::FloatImmNode>()->value, t);
            if (!t.is_float()) return convert(llvm::ConstantFP::get(f64, v), DataType::float64(), t);
            return em.fconst(v, t);
        }
        case ir::NodeKind::StringImm:
            return ci(0);
        case ir::NodeKind::Var:
            return var(x->as<ir::VarNode>());
        case ir::NodeKind::Binary:
            return em.binary(*x->as<ir::BinaryNode>(), t);
        case ir::NodeKind::Unary:
            return em.unary(*x->as<ir::UnaryNode>(), t);
        case ir::NodeKind::Cast:
            return em.cast(*x->as<ir::CastNode>(), t);
        case ir::NodeKind::Select:
            return em.select(*x->as<ir::SelectNode>(), t);
        case ir::NodeKind::BufferLoad:
            return em.load(*x->as<ir::BufferLoadNode>());
        case ir::NodeKind::Call:
            return em.call(*x->as<ir::CallNode>(), t);
        default:
            throw Reject{std::string("expression `") + ir::node_kind_name(x->kind) + "`"};
    }
}

Value* Emitter::truthy(const ir::Expr& x) {
    Value* v = expr(x);
    if (x->dtype.is_float()) return b.CreateICmpNE(convert(v, x->dtype, DataType::int64()), ci(0));
    return b.CreateICmpNE(v, ci(0));
}

}  // namespace tp::jit
