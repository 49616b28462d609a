// T.print and fp8 values in the JIT. A print calls tp_jit_print_* (value_helpers.cpp), which
// formats the line as the interpreter does (interp::print_line_prefix / print_value) into the
// block's own text; the runner hands the blocks' texts out in block order once the run ends, as
// the interpreter does. fp8 (e4m3, e5m2) values are held as f32 (each is exact there): a load
// reads a 256-entry table of the byte's values, a rounding or a store calls the interpreter's
// own conversion through a helper, so the bits are the interpreter's.
#include "jit/emit.h"
#include "jit/value_helpers.h"
#include "tensor/tensor.h"

namespace tp::jit {

using ir::DataType;
using llvm::Value;

namespace {

Value* string_ptr(llvm::IRBuilder<>& b, const std::string& s) { return b.CreateGlobalStringPtr(s, "str"); }

}  // namespace

void Emitter::print_op(const ir::PrintOpNode& p) {
    has_print = true;
    Value* msg = string_ptr(b, p.msg);
    if (auto* buf = std::get_if<ir::Buffer>(&p.value)) {
        BufInfo& bi = buffer(*buf);
        value_type(bi.node->dtype);
        llvm::FunctionCallee f =
            mod.getOrInsertFunction("tp_jit_print_buffer", llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, ptr, i64, ptr, i64, ptr}, false));
        Value* blocks = entry_alloca(llvm::ArrayType::get(i64, 3), nullptr, "print.block", 8);
        for (int d = 0; d < 3; ++d) b.CreateStore(block_idx[d], b.CreateConstInBoundsGEP1_64(i64, blocks, d));
        const DataType t = bi.node->dtype;
        b.CreateCall(f, {state_arg, msg, string_ptr(b, bi.node->name), ci(static_cast<int64_t>(t.code) << 16 | t.bits), bi.base, bi.size, blocks});
        return;
    }
    const ir::Expr& e = std::get<ir::Expr>(p.value);
    Value* v = to_double(expr(e), e->dtype);
    llvm::FunctionCallee f =
        mod.getOrInsertFunction("tp_jit_print_scalar", llvm::FunctionType::get(b.getVoidTy(), {ptr, ptr, i64, f64, i64, i64, i64}, false));
    const DataType t = e->dtype;
    b.CreateCall(f, {state_arg, msg, ci(static_cast<int64_t>(t.code) << 16 | t.bits), v, block_idx[0], block_idx[1], block_idx[2]});
}

Value* Emitter::fp8_decode(Value* raw, DataType t) {
    const std::string name = t.code == DataType::Float8E4M3 ? "tp_fp8_e4m3_values" : "tp_fp8_e5m2_values";
    llvm::GlobalVariable* table = mod.getNamedGlobal(name);
    if (!table) {
        std::vector<llvm::Constant*> vals;
        for (int bits = 0; bits < 256; ++bits) {
            const auto u = static_cast<uint8_t>(bits);
            const double v = t.code == DataType::Float8E4M3 ? fp8_e4m3_bits_to_double(u) : fp8_e5m2_bits_to_double(u);
            vals.push_back(llvm::ConstantFP::get(f32, v));
        }
        auto* ty = llvm::ArrayType::get(f32, 256);
        table = new llvm::GlobalVariable(mod, ty, true, llvm::GlobalValue::PrivateLinkage, llvm::ConstantArray::get(ty, vals), name);
    }
    Value* at = b.CreateZExt(raw, i64);
    return b.CreateLoad(f32, b.CreateInBoundsGEP(llvm::ArrayType::get(f32, 256), table, {ci(0), at}));
}

Value* Emitter::fp8_encode(Value* v, DataType t) {
    llvm::FunctionCallee f = mod.getOrInsertFunction("tp_jit_fp8_bits", llvm::FunctionType::get(b.getInt32Ty(), {f64, b.getInt32Ty()}, false));
    if (auto* fn_ = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
        fn_->setDoesNotThrow();
        fn_->setDoesNotAccessMemory();
        fn_->setWillReturn();
    }
    Value* bits = b.CreateCall(f, {to_double(v, t), b.getInt32(t.code)});
    return b.CreateTrunc(bits, i8);
}

Value* Emitter::fp8_round(Value* v, DataType t) {
    llvm::FunctionCallee f = mod.getOrInsertFunction("tp_jit_fp8_round", llvm::FunctionType::get(f64, {f64, b.getInt32Ty()}, false));
    if (auto* fn_ = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
        fn_->setDoesNotThrow();
        fn_->setDoesNotAccessMemory();
        fn_->setWillReturn();
    }
    Value* d = v->getType() == f64 ? v : b.CreateFPExt(v, f64);
    return b.CreateFPTrunc(b.CreateCall(f, {d, b.getInt32(t.code)}), f32);
}

}  // namespace tp::jit
