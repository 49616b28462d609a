// T.atomic_add in the JIT, with the interpreter's semantics (atomic_add_at in
// core/interp/tile_ops.cpp): blocks run concurrently on the thread pool, so an add into a
// global tensor is a compare-and-swap loop on the element's bytes; the new value is the old one
// plus the addend in double, rounded once to the element's dtype (integers add in i64 and wrap).
// The scalar form and `return_prev=True` fault on an element outside the buffer; the tile form
// pairs its regions as T.copy does and drops global elements outside the tensor.
#include "jit/emit.h"

namespace tp::jit {

using ir::DataType;
using llvm::Value;

namespace {

bool fp8(DataType t) { return t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2; }

}  // namespace

// An element's bits (an integer of its width) as the dtype's value type, and back.
Value* Emitter::decode_bits(Value* raw, DataType t) {
    if (t.code == DataType::Float && t.bits == 16) return b.CreateFPExt(b.CreateBitCast(raw, b.getHalfTy()), f32);
    if (t.code == DataType::Float) return b.CreateBitCast(raw, t.bits == 32 ? f32 : f64);
    if (t.code == DataType::BFloat) return b.CreateBitCast(b.CreateShl(b.CreateZExt(raw, b.getInt32Ty()), 16), f32);
    if (fp8(t)) return fp8_decode(raw, t);
    if (raw->getType() == i64) return raw;
    return t.code == DataType::Int ? b.CreateSExt(raw, i64) : b.CreateZExt(raw, i64);
}

Value* Emitter::encode_bits(Value* v, DataType t) {
    if (t.code == DataType::Float && t.bits == 16) return b.CreateBitCast(b.CreateFPTrunc(v, b.getHalfTy()), b.getInt16Ty());
    if (t.code == DataType::Float) return b.CreateBitCast(v, t.bits == 32 ? b.getInt32Ty() : i64);
    if (t.code == DataType::BFloat) return b.CreateTrunc(b.CreateLShr(b.CreateBitCast(v, b.getInt32Ty()), 16), b.getInt16Ty());
    if (fp8(t)) return fp8_encode(v, t);
    llvm::Type* it = llvm::IntegerType::get(ctx, static_cast<unsigned>(t.bytes() * 8));
    return it == i64 ? v : b.CreateTrunc(v, it);
}

// old + x as the interpreter computes it: in double, rounded once to the dtype; integer adds of
// an integer in i64, wrapped (the interpreter's double sum is the same below 2^53).
Value* Emitter::atomic_sum(Value* old, DataType t, Value* x, DataType xt) {
    if (!t.is_float() && !xt.is_float()) return wrap(b.CreateAdd(old, x), t);
    Value* s = b.CreateFAdd(to_double(old, t), to_double(x, xt));
    return convert(s, DataType::float64(), t);
}

Value* Emitter::atomic_add_elem(BufInfo& bi, Value* flat, Value* x, DataType xt) {
    const DataType t = bi.node->dtype;
    Value* p = elem_ptr(bi, flat);
    llvm::Type* it = llvm::IntegerType::get(ctx, static_cast<unsigned>(t.bytes() * 8));
    const llvm::Align align(static_cast<uint64_t>(t.bytes()));
    Value* old = nullptr;
    if (!bi.global) {  // block-local: one worker owns the block
        old = decode_bits(b.CreateAlignedLoad(it, p, align), t);
        b.CreateAlignedStore(encode_bits(atomic_sum(old, t, x, xt), t), p, align);
    } else {
        auto* first = b.CreateAlignedLoad(it, p, align);
        first->setAtomic(llvm::AtomicOrdering::Monotonic);
        llvm::BasicBlock* pre = b.GetInsertBlock();
        llvm::BasicBlock* retry = new_block("atomic.retry");
        llvm::BasicBlock* done = new_block("atomic.done");
        b.CreateBr(retry);
        b.SetInsertPoint(retry);
        llvm::PHINode* bits = b.CreatePHI(it, 2, "atomic.old");
        bits->addIncoming(first, pre);
        old = decode_bits(bits, t);
        Value* want = encode_bits(atomic_sum(old, t, x, xt), t);
        auto* cas = b.CreateAtomicCmpXchg(p, bits, want, align, llvm::AtomicOrdering::Monotonic, llvm::AtomicOrdering::Monotonic);
        bits->addIncoming(b.CreateExtractValue(cas, 0), b.GetInsertBlock());
        b.CreateCondBr(b.CreateExtractValue(cas, 1), done, retry);
        b.SetInsertPoint(done);
        old = decode_bits(bits, t);
    }
    if (bi.written) {
        auto* st = b.CreateStore(b.getInt8(1), b.CreateInBoundsGEP(i8, bi.written, flat));
        st->setAtomic(llvm::AtomicOrdering::Monotonic);
    }
    return old;
}

// T.atomic_add(x, v, return_prev=True): the element's value before the add.
Value* Emitter::atomic_add_prev(const ir::CallNode& c) {
    auto* l = c.args.at(0)->as<ir::BufferLoadNode>();
    if (!l) throw Reject{"`T.atomic_add` on something that is not a buffer element"};
    BufInfo& bi = buffer(l->buffer);
    std::vector<Value*> idx;
    for (const auto& i : l->indices) idx.push_back(convert(expr(i), i->dtype, DataType::int64()));
    Value* flat = flat_index(bi, idx);
    Value* x = expr(c.args[1]);
    return convert(atomic_add_elem(bi, flat, x, c.args[1]->dtype), bi.node->dtype, c.dtype);
}

void Emitter::atomic_add_op(const ir::AtomicAddOpNode& a) {
    BufInfo& db = buffer(a.dst.buffer);
    if (auto* e = std::get_if<ir::Expr>(&a.src)) {
        Value* flat = flat_index(db, region_mins(a.dst));
        atomic_add_elem(db, flat, expr(*e), (*e)->dtype);
        return;
    }
    const ir::BufferRegion& src = std::get<ir::BufferRegion>(a.src);
    BufInfo& sb = buffer(src.buffer);
    std::vector<int64_t> se = const_extents(src, "T.atomic_add"), de = const_extents(a.dst, "T.atomic_add");
    std::vector<int> sn, dn;
    if (!pair_region_dims(se, de, sn, dn)) throw Reject{"`T.atomic_add` between regions of different shapes"};
    if (se.size() != sb.shape.size() || de.size() != db.shape.size()) throw Reject{"`T.atomic_add` region rank differs from its buffer's"};
    std::vector<Value*> sm = region_mins(src), dm = region_mins(a.dst);
    std::vector<int64_t> ext;
    for (int x : sn) ext.push_back(se[static_cast<size_t>(x)]);
    auto coords = [&](const std::vector<Value*>& mins, const std::vector<int>& map, const std::vector<Value*>& k) {
        std::vector<Value*> idx(mins);
        for (size_t x = 0; x < map.size(); ++x) idx[static_cast<size_t>(map[x])] = b.CreateAdd(mins[static_cast<size_t>(map[x])], k[x]);
        return idx;
    };
    auto inside = [&](BufInfo& bi, const std::vector<Value*>& idx) {
        Value* ok = b.getTrue();
        for (size_t d = 0; d < idx.size(); ++d) ok = b.CreateAnd(ok, b.CreateICmpULT(idx[d], bi.shape[d]));
        return ok;
    };
    auto flat = [&](BufInfo& bi, const std::vector<Value*>& idx) {
        Value* f = ci(0);
        for (size_t d = 0; d < idx.size(); ++d) f = b.CreateAdd(f, b.CreateMul(idx[d], bi.strides[d]));
        return f;
    };
    nest(ext, [&](const std::vector<Value*>& k) {
        std::vector<Value*> si = coords(sm, sn, k), di = coords(dm, dn, k);
        Value* s_ok = inside(sb, si);
        Value* d_ok = inside(db, di);
        // A source element outside its buffer, or a destination one outside a non-global buffer,
        // is the interpreter's fault; a global destination element outside the tensor is dropped.
        fault_if(b.CreateNot(db.global ? s_ok : b.CreateAnd(s_ok, d_ok)));
        if_then(b.CreateAnd(s_ok, d_ok), [&] {
            Value* x = load_elem(sb, flat(sb, si));
            atomic_add_elem(db, flat(db, di), x, sb.node->dtype);
        });
    });
}

}  // namespace tp::jit
