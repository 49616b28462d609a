// T.copy, T.fill and T.reduce_* in the JIT, with the interpreter's semantics
// (core/interp/tile_ops.cpp): a copy or fill drops global elements outside the tensor (and
// reads them as 0), any other out-of-range element is a fault; a reduction accumulates in
// double in row order and rounds once on store. A region that lies inside its buffer (the usual
// case, checked once per op) takes a loop nest without per-element checks, which vectorises.
#include <cmath>

#include "jit/emit.h"
#include "jit/region_helpers.h"

namespace tp::jit {

using ir::DataType;
using llvm::Value;

std::vector<int64_t> Emitter::const_extents(const ir::BufferRegion& r, const char* op) {
    std::vector<int64_t> out;
    for (const auto& rg : r.region) {
        auto c = ir::as_const_int(rg.extent);
        if (!c) throw Reject{std::string("`") + op + "` on a region of `" + r.buffer->name + "` whose extent is not constant"};
        out.push_back(*c);
    }
    return out;
}

std::vector<Value*> Emitter::region_mins(const ir::BufferRegion& r) {
    std::vector<Value*> out;
    for (const auto& rg : r.region) out.push_back(convert(expr(rg.min), rg.min->dtype, DataType::int64()));
    return out;
}

void Emitter::nest(const std::vector<int64_t>& ext, const std::function<void(const std::vector<Value*>&)>& body) {
    std::vector<Value*> ks(ext.size(), nullptr);
    std::function<void(size_t)> rec = [&](size_t x) {
        if (x == ext.size()) return body(ks);
        loop(ci(0), ci(ext[x]), [&](Value* i) {
            ks[x] = i;
            rec(x + 1);
        });
    };
    rec(0);
}

Value* Emitter::box_inside(BufInfo& bi, const std::vector<Value*>& mins, const std::vector<int64_t>& ext) {
    Value* ok = b.getTrue();
    for (size_t d = 0; d < mins.size(); ++d) {
        ok = b.CreateAnd(ok, b.CreateICmpSGE(mins[d], ci(0)));
        ok = b.CreateAnd(ok, b.CreateICmpSLE(b.CreateAdd(mins[d], ci(ext[d])), bi.shape[d]));
    }
    return ok;
}

namespace {

int64_t volume(const std::vector<int64_t>& e) {
    int64_t v = 1;
    for (auto x : e) v *= x;
    return v;
}

}  // namespace

bool pair_region_dims(std::vector<int64_t>& s, std::vector<int64_t>& d, std::vector<int>& sn, std::vector<int>& dn) {
    for (int x = 0; x < static_cast<int>(s.size()); ++x)
        if (s[x] != 1) sn.push_back(x);
    for (int x = 0; x < static_cast<int>(d.size()); ++x)
        if (d[x] != 1) dn.push_back(x);
    auto same = [&] {
        if (sn.size() != dn.size()) return false;
        for (size_t k = 0; k < sn.size(); ++k)
            if (s[sn[k]] != d[dn[k]]) return false;
        return true;
    };
    if (same()) return true;
    if (volume(s) == 1 && dn.size() <= s.size()) {
        sn.clear();
        for (size_t k = 0; k < dn.size(); ++k) {
            int x = static_cast<int>(s.size() - dn.size() + k);
            s[x] = d[dn[k]];
            sn.push_back(x);
        }
    } else if (volume(d) == 1 && sn.size() <= d.size()) {
        dn.clear();
        for (size_t k = 0; k < sn.size(); ++k) {
            int x = static_cast<int>(d.size() - sn.size() + k);
            d[x] = s[sn[k]];
            dn.push_back(x);
        }
    }
    return same();
}

// A copy whose region extents are not all constants (`Q[b, s, H0:H1, D:]` of a tensor with a
// symbolic dim) goes element by element through tp_jit_copy_dynamic, which pairs the regions at
// run time as the interpreter does.
void Emitter::tile_copy_dynamic(const ir::CopyOpNode& c, BufInfo& sb, BufInfo& db) {
    if (c.src.region.size() != sb.shape.size() || c.dst.region.size() != db.shape.size())
        throw Reject{"`T.copy` region rank differs from its buffer's"};
    auto extents = [&](const ir::BufferRegion& r) {
        llvm::AllocaInst* a = entry_alloca(llvm::ArrayType::get(i64, kRegionMaxRank), nullptr, "ext", 8);
        for (size_t d = 0; d < r.region.size(); ++d)
            b.CreateStore(convert(expr(r.region[d].extent), r.region[d].extent->dtype, DataType::int64()),
                          b.CreateConstInBoundsGEP1_64(i64, a, static_cast<int64_t>(d)));
        return a;
    };
    Value* sd = region_desc(sb, region_mins(c.src));
    Value* dd = region_desc(db, region_mins(c.dst));
    Value* se = extents(c.src);
    Value* de = extents(c.dst);
    llvm::FunctionCallee helper =
        mod.getOrInsertFunction("tp_jit_copy_dynamic", llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr, ptr, ptr, ptr, ptr, ptr}, false));
    Value* wr = db.written ? db.written : llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptr));
    fault_if(b.CreateICmpNE(b.CreateCall(helper, {sb.base, sd, se, db.base, dd, de, wr}), b.getInt32(0)));
}

void Emitter::tile_copy(const ir::CopyOpNode& c) {
    BufInfo& sb = buffer(c.src.buffer);
    BufInfo& db = buffer(c.dst.buffer);
    auto constant = [](const ir::BufferRegion& r) {
        for (const auto& rg : r.region)
            if (!ir::as_const_int(rg.extent)) return false;
        return true;
    };
    if (!constant(c.src) || !constant(c.dst)) return tile_copy_dynamic(c, sb, db);
    std::vector<int64_t> se = const_extents(c.src, "T.copy"), de = const_extents(c.dst, "T.copy");
    std::vector<int> sn, dn;
    if (!pair_region_dims(se, de, sn, dn)) throw Reject{"`T.copy` between regions of different shapes"};
    if (se.size() != sb.shape.size() || de.size() != db.shape.size()) throw Reject{"`T.copy` region rank differs from its buffer's"};
    std::vector<Value*> sm = region_mins(c.src), dm = region_mins(c.dst);
    std::vector<int64_t> ext;
    for (int x : sn) ext.push_back(se[static_cast<size_t>(x)]);
    const DataType st = sb.node->dtype, dt = db.node->dtype;
    auto coords = [&](const std::vector<Value*>& mins, const std::vector<int>& map, const std::vector<Value*>& k) {
        std::vector<Value*> idx(mins);
        for (size_t x = 0; x < map.size(); ++x) idx[static_cast<size_t>(map[x])] = b.CreateAdd(mins[static_cast<size_t>(map[x])], k[x]);
        return idx;
    };
    auto flat = [&](BufInfo& bi, const std::vector<Value*>& idx) {
        Value* f = ci(0);
        for (size_t d = 0; d < idx.size(); ++d) f = b.CreateAdd(f, b.CreateMul(idx[d], bi.strides[d]));
        return f;
    };
    auto inside = [&](BufInfo& bi, const std::vector<Value*>& idx) {
        Value* ok = b.getTrue();
        for (size_t d = 0; d < idx.size(); ++d) ok = b.CreateAnd(ok, b.CreateICmpULT(idx[d], bi.shape[d]));
        return ok;
    };
    Value* fast = b.CreateAnd(box_inside(sb, sm, se), box_inside(db, dm, de));
    if_then(
        fast,
        [&] {
            nest(ext, [&](const std::vector<Value*>& k) {
                Value* v = load_elem(sb, flat(sb, coords(sm, sn, k)));
                store_elem(db, flat(db, coords(dm, dn, k)), convert(v, st, dt));
            });
        },
        [&] {
            // A region across the buffer's edge: the element-by-element walk in region_helpers.cpp.
            std::vector<int64_t> sdim(sn.begin(), sn.end()), ddim(dn.begin(), dn.end());
            Value* sd = region_desc(sb, sm);
            Value* dd = region_desc(db, dm);
            Value* mp = region_map(ext, sdim, ddim);
            llvm::FunctionCallee helper =
                mod.getOrInsertFunction("tp_jit_copy_region", llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr, ptr, ptr, ptr, ptr}, false));
            Value* wr = db.written ? db.written : llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptr));
            fault_if(b.CreateICmpNE(b.CreateCall(helper, {sb.base, sd, db.base, dd, mp, wr}), b.getInt32(0)));
        });
}

Value* Emitter::region_desc(BufInfo& bi, const std::vector<Value*>& mins) {
    llvm::AllocaInst* a = entry_alloca(llvm::ArrayType::get(i64, 4 + 2 * kRegionMaxRank), nullptr, "desc", 8);
    auto put = [&](int64_t at, Value* v) { b.CreateStore(v, b.CreateConstInBoundsGEP1_64(i64, a, at)); };
    put(0, ci(bi.node->dtype.code));
    put(1, ci(bi.node->dtype.bits));
    put(2, ci(bi.global ? 1 : 0));
    put(3, ci(static_cast<int64_t>(bi.shape.size())));
    for (size_t d = 0; d < bi.shape.size(); ++d) {
        put(4 + static_cast<int64_t>(d), bi.shape[d]);
        put(4 + kRegionMaxRank + static_cast<int64_t>(d), mins[d]);
    }
    return a;
}

Value* Emitter::region_map(const std::vector<int64_t>& ext, const std::vector<int64_t>& sdim, const std::vector<int64_t>& ddim) {
    llvm::AllocaInst* a = entry_alloca(llvm::ArrayType::get(i64, 1 + 3 * kRegionMaxRank), nullptr, "map", 8);
    auto put = [&](int64_t at, int64_t v) { b.CreateStore(ci(v), b.CreateConstInBoundsGEP1_64(i64, a, at)); };
    put(0, static_cast<int64_t>(ext.size()));
    for (size_t x = 0; x < ext.size(); ++x) {
        put(1 + static_cast<int64_t>(x), ext[x]);
        put(1 + kRegionMaxRank + static_cast<int64_t>(x), sdim[x]);
        put(1 + 2 * kRegionMaxRank + static_cast<int64_t>(x), ddim[x]);
    }
    return a;
}

void Emitter::tile_fill(const ir::FillOpNode& f) {
    BufInfo& db = buffer(f.dst.buffer);
    std::vector<int64_t> de = const_extents(f.dst, "T.fill");
    if (de.size() != db.shape.size()) throw Reject{"`T.fill` region rank differs from its buffer's"};
    std::vector<Value*> dm = region_mins(f.dst);
    const DataType dt = db.node->dtype;
    Value* v = expr(f.value);
    if (!dt.is_float() && f.value->dtype.is_float())
        v = convert(convert(v, f.value->dtype, DataType::int64()), DataType::int64(), dt);
    else
        v = convert(v, f.value->dtype, dt);
    if_then(
        box_inside(db, dm, de),
        [&] {
            nest(de, [&](const std::vector<Value*>& k) {
                Value* fl = ci(0);
                for (size_t d = 0; d < k.size(); ++d) fl = b.CreateAdd(fl, b.CreateMul(b.CreateAdd(dm[d], k[d]), db.strides[d]));
                store_elem(db, fl, v);
            });
        },
        [&] {
            std::vector<int64_t> dims(de.size());
            for (size_t d = 0; d < de.size(); ++d) dims[d] = static_cast<int64_t>(d);
            Value* dd = region_desc(db, dm);
            Value* mp = region_map(de, dims, dims);
            llvm::FunctionCallee helper =
                mod.getOrInsertFunction("tp_jit_fill_region", llvm::FunctionType::get(b.getInt32Ty(), {ptr, ptr, ptr, f64, ptr}, false));
            Value* wr = db.written ? db.written : llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptr));
            fault_if(b.CreateICmpNE(b.CreateCall(helper, {db.base, dd, mp, to_double(v, dt), wr}), b.getInt32(0)));
        });
}

void Emitter::tile_reduce(const ir::ReduceOpNode& r) {
    BufInfo& sb = buffer(r.src);
    BufInfo& db = buffer(r.dst);
    auto consts = [&](BufInfo& bi) {
        std::vector<int64_t> out;
        for (Value* s : bi.shape) {
            auto* c = llvm::dyn_cast<llvm::ConstantInt>(s);
            if (!c) throw Reject{"`T.reduce` on `" + bi.node->name + "`, whose shape is not constant"};
            out.push_back(c->getSExtValue());
        }
        return out;
    };
    std::vector<int64_t> s = consts(sb), d = consts(db);
    const int dim = r.dim;
    if (dim < 0 || dim >= static_cast<int>(s.size())) throw Reject{"`T.reduce` over a dim its source does not have"};
    int64_t outer = 1, red = s[static_cast<size_t>(dim)], inner = 1;
    for (int x = 0; x < dim; ++x) outer *= s[static_cast<size_t>(x)];
    for (size_t x = static_cast<size_t>(dim) + 1; x < s.size(); ++x) inner *= s[x];
    std::vector<int64_t> want, keep(s);
    for (size_t x = 0; x < s.size(); ++x)
        if (static_cast<int>(x) != dim) want.push_back(s[x]);
    keep[static_cast<size_t>(dim)] = 1;
    if (volume(d) != outer * inner || !(d == want || d == keep || (want.empty() && volume(d) == 1))) throw Reject{"`T.reduce` shapes that disagree"};
    const bool is_max = r.reduce_kind == ir::ReduceKind::Max || r.reduce_kind == ir::ReduceKind::AbsMax;
    const bool is_min = r.reduce_kind == ir::ReduceKind::Min;
    const bool is_abs = r.reduce_kind == ir::ReduceKind::AbsMax || r.reduce_kind == ir::ReduceKind::AbsSum;
    const double init = is_max ? (is_abs ? 0.0 : -INFINITY) : is_min ? INFINITY : 0.0;
    auto combine = [&](Value* acc, Value* v) -> Value* {
        if (is_max) return call_intrinsic(llvm::Intrinsic::maxnum, f64, {acc, v});
        if (is_min) return call_intrinsic(llvm::Intrinsic::minnum, f64, {acc, v});
        return b.CreateFAdd(acc, v);
    };
    llvm::AllocaInst* acc = entry_alloca(f64, nullptr, "red.acc", 8);
    nest({outer, inner}, [&](const std::vector<Value*>& k) {
        b.CreateStore(llvm::ConstantFP::get(f64, init), acc);
        Value* base = b.CreateAdd(b.CreateMul(k[0], ci(red * inner)), k[1]);
        loop(ci(0), ci(red), [&](Value* j) {
            Value* v = to_double(load_elem(sb, b.CreateAdd(base, b.CreateMul(j, ci(inner)))), sb.node->dtype);
            if (is_abs) v = call_intrinsic(llvm::Intrinsic::fabs, f64, {v});
            b.CreateStore(combine(b.CreateLoad(f64, acc), v), acc);
        });
        Value* df = b.CreateAdd(b.CreateMul(k[0], ci(inner)), k[1]);
        Value* a = b.CreateLoad(f64, acc);
        if (!r.clear) a = combine(to_double(load_elem(db, df), db.node->dtype), a);
        store_elem(db, df, convert(a, DataType::float64(), db.node->dtype));
    });
}

}  // namespace tp::jit
