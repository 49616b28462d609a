// Values and buffer elements of the JIT: the dtype's value type (i64, f32 or f64), the
// interpreter's integer wrap and float rounding (round_value in core/interp/access.cpp), the
// conversions between dtypes, and loads and stores of a buffer's elements in its own bytes
// (fp16 through F16C, bf16 as the top half of an f32).
#include <llvm/IR/Intrinsics.h>

#include "jit/emit.h"

namespace tp::jit {

using ir::DataType;
using llvm::Value;

llvm::Type* Emitter::value_type(DataType t) {
    if (t.lanes != 1) throw Reject{"vector dtype `" + t.name() + "`"};
    switch (t.code) {
        case DataType::Float:
            if (t.bits == 64) return f64;
            return f32;
        case DataType::BFloat:
        case DataType::Float8E4M3:
        case DataType::Float8E5M2:
            return f32;
        case DataType::Int:
        case DataType::UInt:
        case DataType::Bool:
            return i64;
        default:
            throw Reject{"values of dtype `" + t.name() + "`"};
    }
}

Value* Emitter::wrap(Value* v, DataType t) {
    if (t.is_bool()) return b.CreateZExt(b.CreateICmpNE(v, ci(0)), i64);
    if (t.bits >= 64) return v;
    llvm::Type* n = llvm::IntegerType::get(ctx, t.bits);
    Value* tr = b.CreateTrunc(v, n);
    return t.code == DataType::UInt ? b.CreateZExt(tr, i64) : b.CreateSExt(tr, i64);
}

Value* Emitter::to_double(Value* v, DataType from) {
    if (v->getType() == f64) return v;
    if (v->getType() == f32) return b.CreateFPExt(v, f64);
    return b.CreateSIToFP(v, f64);  // the interpreter's static_cast<double>(int64)
}

Value* Emitter::round_to(Value* v, DataType to) {
    value_type(to);
    if (to.code == DataType::Float && to.bits == 64) return v->getType() == f64 ? v : b.CreateFPExt(v, f64);
    if (to.code == DataType::Float && to.bits == 32) return v->getType() == f64 ? b.CreateFPTrunc(v, f32) : v;
    if (!to.is_float()) return convert(v, v->getType() == f64 ? DataType::float64() : DataType::float32(), to);
    if (to.code == DataType::Float8E4M3 || to.code == DataType::Float8E5M2) return fp8_round(v, to);
    if (v->getType() == f64) {
        // One rounding from double (an f32 step first could round twice): the interpreter's routine.
        Value* r = call_libm(to.code == DataType::BFloat ? "tp_jit_round_bf16" : "tp_jit_round_f16", {v});
        return b.CreateFPTrunc(r, f32);
    }
    if (to.code == DataType::Float && to.bits == 16) return b.CreateFPExt(b.CreateFPTrunc(v, b.getHalfTy()), f32);
    if (to.code == DataType::BFloat) {
        // Round to nearest even on the top 16 bits; NaN stays a (quiet) NaN.
        Value* u = b.CreateBitCast(v, b.getInt32Ty());
        Value* lsb = b.CreateAnd(b.CreateLShr(u, 16), b.getInt32(1));
        Value* r = b.CreateAnd(b.CreateAdd(u, b.CreateAdd(b.getInt32(0x7FFF), lsb)), b.getInt32(0xFFFF0000u));
        Value* nan = b.CreateFCmpUNO(v, v);
        r = b.CreateSelect(nan, b.CreateOr(b.CreateAnd(u, b.getInt32(0xFFFF0000u)), b.getInt32(0x00400000)), r);
        return b.CreateBitCast(r, f32);
    }
    throw Reject{"values of dtype `" + to.name() + "`"};
}

Value* Emitter::convert(Value* v, DataType from, DataType to) {
    value_type(from);
    value_type(to);
    if (to.is_bool()) {
        Value* nz = from.is_float() ? b.CreateFCmpUNE(v, llvm::ConstantFP::get(v->getType(), 0.0)) : b.CreateICmpNE(v, ci(0));
        return b.CreateZExt(nz, i64);
    }
    if (to.is_int()) {
        if (!from.is_float()) return wrap(v, to);
        // to_int: NaN -> 0, saturating at the int64 range, toward zero; then the dtype's wrap.
        Value* d = to_double(v, from);
        return wrap(call_intrinsic(llvm::Intrinsic::fptosi_sat, i64, {d}), to);
    }
    if (!from.is_float()) return round_to(b.CreateSIToFP(v, f64), to);
    return round_to(v, to);
}

Value* Emitter::call_intrinsic(llvm::Intrinsic::ID id, llvm::Type* t, std::vector<Value*> args) {
    std::vector<llvm::Type*> tys{t};
    if (id == llvm::Intrinsic::fptosi_sat) tys.push_back(args[0]->getType());
    llvm::Function* f = llvm::Intrinsic::getDeclaration(&mod, id, tys);
    return b.CreateCall(f, args);
}

Value* Emitter::call_libm(const char* name, std::vector<Value*> args) {
    std::vector<llvm::Type*> tys(args.size(), f64);
    llvm::FunctionCallee f = mod.getOrInsertFunction(name, llvm::FunctionType::get(f64, tys, false));
    if (auto* fn_ = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
        fn_->setDoesNotThrow();
        fn_->setOnlyAccessesInaccessibleMemory();  // errno at most: loads around it stay put
        fn_->setWillReturn();
    }
    return b.CreateCall(f, args);
}

// T.reinterpret as the interpreter's Reinterpret (compile_call.cpp): the argument's bits in its
// own dtype (an integer masked to its width), read back as the call's dtype.
Value* Emitter::reinterpret(const ir::CallNode& c) {
    const DataType from = c.args[0]->dtype, to = c.dtype;
    value_type(from);
    value_type(to);
    Value* raw = encode_bits(expr(c.args[0]), from);  // an integer of the argument's width
    if (!to.is_float()) {
        // The interpreter's integer(): the bits, sign-extended from the call's width for Int.
        Value* w = b.CreateZExtOrTrunc(raw, i64);
        if (to.code != DataType::Int || to.bits >= 64) return w;
        const int64_t sh = 64 - to.bits;
        return b.CreateAShr(b.CreateShl(w, ci(sh)), ci(sh));
    }
    return decode_bits(b.CreateZExtOrTrunc(raw, llvm::IntegerType::get(ctx, static_cast<unsigned>(to.bytes() * 8))), to);
}

// ---------------------------------------------------------------- buffer elements

Value* Emitter::flat_index(BufInfo& bi, const std::vector<Value*>& idx) {
    if (idx.empty()) {
        if (checked) fault_if(b.CreateICmpSLT(bi.size, ci(1)));
        return ci(0);
    }
    if (idx.size() != bi.shape.size()) throw Reject{"an access to `" + bi.node->name + "` with the wrong number of indices"};
    Value* flat = ci(0);
    Value* bad = b.getFalse();
    for (size_t d = 0; d < idx.size(); ++d) {
        flat = b.CreateAdd(b.CreateMul(flat, bi.shape[d]), idx[d]);
        if (checked) bad = b.CreateOr(bad, b.CreateICmpUGE(idx[d], bi.shape[d]));
    }
    if (!checked) return flat;
    fault_if(bad);
    return b.CreateSelect(bad, ci(0), flat);
}

Value* Emitter::elem_ptr(BufInfo& bi, Value* flat) {
    const DataType t = bi.node->dtype;
    llvm::Type* et = llvm::IntegerType::get(ctx, static_cast<unsigned>(t.bytes() * 8));
    if (t.code == DataType::Float && t.bits == 32) et = f32;
    if (t.code == DataType::Float && t.bits == 64) et = f64;
    if (t.code == DataType::Float && t.bits == 16) et = b.getHalfTy();
    return b.CreateInBoundsGEP(et, bi.base, flat);
}

Value* Emitter::load_elem(BufInfo& bi, Value* flat) {
    const DataType t = bi.node->dtype;
    value_type(t);
    Value* p = elem_ptr(bi, flat);
    if (t.code == DataType::Float) {
        if (t.bits == 16) return b.CreateFPExt(b.CreateLoad(b.getHalfTy(), p), f32);
        return b.CreateLoad(t.bits == 32 ? f32 : f64, p);
    }
    if (t.code == DataType::BFloat) {
        Value* u = b.CreateZExt(b.CreateLoad(b.getInt16Ty(), p), b.getInt32Ty());
        return b.CreateBitCast(b.CreateShl(u, 16), f32);
    }
    if (t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2) return fp8_decode(b.CreateLoad(i8, p), t);
    llvm::Type* it = llvm::IntegerType::get(ctx, static_cast<unsigned>(t.bytes() * 8));
    Value* raw = b.CreateLoad(it, p);
    if (it == i64) return raw;
    return t.code == DataType::Int ? b.CreateSExt(raw, i64) : b.CreateZExt(raw, i64);
}

void Emitter::store_elem(BufInfo& bi, Value* flat, Value* v) {
    const DataType t = bi.node->dtype;
    Value* p = elem_ptr(bi, flat);
    if (t.code == DataType::Float) {
        if (t.bits == 16)
            b.CreateStore(b.CreateFPTrunc(v, b.getHalfTy()), p);
        else
            b.CreateStore(v, p);
    } else if (t.code == DataType::BFloat) {
        b.CreateStore(b.CreateTrunc(b.CreateLShr(b.CreateBitCast(v, b.getInt32Ty()), 16), b.getInt16Ty()), p);
    } else if (t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2) {
        b.CreateStore(fp8_encode(v, t), p);
    } else {
        llvm::Type* it = llvm::IntegerType::get(ctx, static_cast<unsigned>(t.bytes() * 8));
        b.CreateStore(it == i64 ? v : b.CreateTrunc(v, it), p);
    }
    if (bi.written) b.CreateStore(b.getInt8(1), b.CreateInBoundsGEP(i8, bi.written, flat));
}

}  // namespace tp::jit
