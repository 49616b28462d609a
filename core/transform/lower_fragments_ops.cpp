// layout_inference's rewrite, part 3 of 3 (see lower_fragments_internal.h): the tile ops that
// touch fragments (T.fill, T.copy, T.print, T.gemm, T.reduce_*) become per-thread loops over the
// local elements or calls into the Tensor-Core, copy and reduction templates.
#include <string>
#include <variant>

#include "ops/copy.h"
#include "transform/lower_fragments_internal.h"
#include "transform/striped_copy.h"
#include "transform/tile_lowering.h"

namespace tp::transform::frag_lowering {

namespace {

const char* reduce_op_name(ReduceKind k) {
    switch (k) {
        case ReduceKind::Max: return "tp::ReduceOp::Max";
        case ReduceKind::Sum: return "tp::ReduceOp::Sum";
        case ReduceKind::Min: return "tp::ReduceOp::Min";
        case ReduceKind::AbsSum: return "tp::ReduceOp::AbsSum";
        case ReduceKind::AbsMax: return "tp::ReduceOp::AbsMax";
    }
    return "tp::ReduceOp::Sum";
}

bool mma_dtype(DataType t) { return t == DataType::float16() || t == DataType::bfloat16(); }
bool fp8_dtype(DataType t) { return t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2; }

// Element types tp_reduce*.cuh reduce from and into: fp32/fp16/bf16 (fp32 partials) and
// integers up to 32 bits (int / unsigned partials, tp::ReduceAccum).
bool reduce_dtype(DataType t) {
    if (t.lanes != 1) return false;
    return t == DataType::float32() || mma_dtype(t) || (t.is_int() && t.bits <= 32);
}

}  // namespace

Stmt FragLowerer::visit_FillOp(const FillOpNode& n, const Stmt& s) {
    if (n.dst.buffer->scope != Scope::Fragment) return IRMutator::visit_FillOp(n, s);
    const FragLayout* l = layout_of(n.dst.buffer);
    if (!l || !whole_buffer(n.dst)) {
        fail("T.fill of part of a fragment", n.span);
        return s;
    }
    Buffer b = local_of(n.dst.buffer);
    Expr v = make_cast(b->dtype, mutate(n.value), n.span);
    return local_loop(l->local_size(), "tp_f", [&](const Expr& i) -> Stmt {
        return std::make_shared<BufferStoreNode>(b, std::vector<Expr>{i}, v, n.span);
    }, n.span);
}

Stmt FragLowerer::visit_CopyOp(const CopyOpNode& n, const Stmt& s) {
    bool sf = n.src.buffer->scope == Scope::Fragment, df = n.dst.buffer->scope == Scope::Fragment;
    if (!sf && !df) return IRMutator::visit_CopyOp(n, s);
    const FragLayout* sl = sf ? layout_of(n.src.buffer) : nullptr;
    const FragLayout* dl = df ? layout_of(n.dst.buffer) : nullptr;
    if (sf && df && sl && dl && *sl == *dl && whole_buffer(n.src) && whole_buffer(n.dst)) {
        Buffer sb = local_of(n.src.buffer), db = local_of(n.dst.buffer);
        // float -> packed f16 / bf16 pairs of an RS wgmma operand (see FragLowerer::packed).
        if (packed.count(n.dst.buffer.get()) && sb->dtype == DataType::float32())
            return device_call("tp::frag_pack_pairs<" + std::to_string(sl->local_size()) + ", " + n.dst.buffer->dtype.cuda_name() + ">",
                               {buffer_addr(sb, {int_imm(0)}, false, n.span), buffer_addr(db, {int_imm(0)}, true, n.span)}, n.span);
        // float -> f16 / bf16 in pairs: one conversion instruction per two elements.
        bool pairs = sb->dtype == DataType::float32() && (db->dtype == DataType::float16() || db->dtype == DataType::bfloat16()) &&
                     sl->local_size() % 2 == 0;
        if (pairs)
            return device_call("tp::frag_cvt_pairs<" + std::to_string(sl->local_size()) + ", " + db->dtype.cuda_name() + ">",
                               {buffer_addr(sb, {int_imm(0)}, false, n.span), buffer_addr(db, {int_imm(0)}, true, n.span)}, n.span);
        return local_loop(sl->local_size(), "tp_f", [&](const Expr& i) -> Stmt {
            Expr v = make_cast(db->dtype, std::make_shared<BufferLoadNode>(sb, std::vector<Expr>{i}, n.span), n.span);
            return std::make_shared<BufferStoreNode>(db, std::vector<Expr>{i}, v, n.span);
        }, n.span);
    }
    // Accumulator <-> memory through the templates (paired stores, swizzle-aware smem).
    const FragLayout* acc = sf && !df ? sl : (df && !sf ? dl : nullptr);
    const BufferRegion& frag = sf ? n.src : n.dst;
    const BufferRegion& mem = sf ? n.dst : n.src;
    if (acc && acc->kind == FragLayout::Acc && whole_buffer(frag) && one_dim_block) {
        auto t = tile_2d(mem);
        if (t && t->rows == acc->bm && t->cols == acc->bn) {
            Buffer fb = local_of(frag.buffer), mb = mutate_buffer(mem.buffer);
            Expr faddr = buffer_addr(fb, {int_imm(0)}, df, n.span);
            Expr maddr = buffer_addr(mb, t->origin, sf, n.span);
            if (mem.buffer->scope == Scope::Global && sf && target && target->has_tma())
                if (Stmt st = tma_store_copy(n, *acc, fb)) return st;
            if (mem.buffer->scope == Scope::Global) {
                std::string fn = sf ? "tp::frag_store_global<" : "tp::frag_load_global<";
                fn += acc->acc_type() + (sf && tile_in_bounds(mem, *t, 2) ? ", true>" : ">");
                return device_call(fn, {faddr, maddr, t->ld, t->rows_valid, t->cols_valid, tid}, n.span);
            }
            if (mem.buffer->scope == Scope::Shared && whole_buffer(mem) && mem.buffer->shape.size() == 2) {
                std::string fn = sf ? "tp::frag_store_smem<" : "tp::frag_load_smem<";
                fn += acc->acc_type() + ", " + std::to_string(t->cols) + ", " + ops::smem_layout_arg(mb) + ">";
                return device_call(fn, {faddr, maddr, tid}, n.span);
            }
        }
    }
    // Striped fragment <-> global memory in runs of V: one vector access per run.
    const FragLayout* striped = sf && !df ? sl : (df && !sf ? dl : nullptr);
    if (striped && striped->kind == FragLayout::Striped && striped->vec > 1 && one_dim_block) {
        if (Stmt v = striped_global_copy(frag, mem, *striped, local_of(frag.buffer), mutate_buffer(mem.buffer), df, tid, n.span)) return v;
    }
    Stmt nest = copy_nest(n.src, n.dst, n.span);
    if (!nest) {
        fail("T.copy between regions of different shapes", n.span);
        return s;
    }
    return mutate(nest);
}

Stmt FragLowerer::tma_store_copy(const CopyOpNode& n, const FragLayout& acc, const Buffer& frag) {
    // Only wgmma accumulators: a warpgroup owns whole 64-row blocks of them.
    const int64_t mt = acc.bm / (16 * std::max(1, acc.warps_m));
    if (acc.warps_m % 4 != 0 || (mt > 1 && !acc.interleave)) return nullptr;
    auto remark = [&](const std::string& why) {
        diags.report(DiagKind::FastPathNotTaken, n.span, {"a TMA store", why, "the threads store the fragment"});
        return nullptr;
    };
    if (!tma_store) return tma_store_why.empty() ? nullptr : remark(tma_store_why);
    if (!params.count(n.dst.buffer.get())) return remark("`" + n.dst.buffer->name + "` is not a kernel parameter, so TMA has no tensor map of it");
    ops::TmaStorePlan plan = ops::plan_tma_store(n, *target, acc.bm, acc.bn);
    if (!plan.ok) return remark(plan.why);
    if ((acc.bn / acc.warps_n) % plan.panel_cols != 0)
        return remark("each warpgroup's " + std::to_string(acc.bn / acc.warps_n) + " columns are not whole 128-byte panels");
    std::string key = ops::tensor_map_key(n.dst.buffer->name, plan.box, 128);
    auto it = std::find(tma_maps.begin(), tma_maps.end(), key);
    const int64_t map = it - tma_maps.begin();
    if (it == tma_maps.end()) tma_maps.push_back(key);
    tma_stored.insert(n.dst.buffer.get());
    if (!store_stage)  // kStoreStageBytes (tp_store_tma.cuh) per warpgroup, 2-D so it is 1024-byte aligned
        store_stage = std::make_shared<BufferNode>("tp_store_stage", DataType(DataType::UInt, 8),
                                                   std::vector<Expr>{int_imm(threads / 128 * 128), int_imm(128)}, Scope::Shared, n.span);
    std::vector<Expr> args = {buffer_addr(frag, {int_imm(0)}, false, n.span), buffer_addr(store_stage, {int_imm(0), int_imm(0)}, true, n.span),
                              make_call("tp.tma_desc", {int_imm(map)}, DataType(DataType::Handle, 64), n.span), tid};
    args.insert(args.end(), plan.coords.begin(), plan.coords.end());
    // A tensor the kernel also reads must be complete in memory when the call returns.
    const bool wait_writes = read_globals.count(n.dst.buffer.get()) > 0;
    std::string fn = "tp::frag_store_tma<" + acc.acc_type() + ", " + n.dst.buffer->dtype.cuda_name() + ", " +
                     std::to_string(plan.coords.size()) + ", " + std::to_string(plan.row_coord) + (wait_writes ? ", true>" : ">");
    return device_call(fn, args, n.span);
}

Stmt FragLowerer::visit_PrintOp(const PrintOpNode& n, const Stmt& s) {
    auto* b = std::get_if<Buffer>(&n.value);
    if (!b || (*b)->scope != Scope::Fragment) return IRMutator::visit_PrintOp(n, s);
    auto tile = std::make_shared<BufferNode>((*b)->name, (*b)->dtype, (*b)->shape, Scope::Shared, (*b)->span);
    print_tiles.push_back(tile);
    auto whole = [](const Buffer& x) {
        BufferRegion r{x, {}};
        for (const auto& d : x->shape) r.region.push_back({int_imm(0), d});
        return r;
    };
    CopyOpNode cp(whole(*b), whole(tile), n.span);
    Stmt copy = visit_CopyOp(cp, nullptr);
    if (!copy) return s;
    return make_seq({copy, std::make_shared<PrintOpNode>(Buffer(tile), n.msg, n.span)}, n.span);
}

// sm_90a: one warpgroup-wide wgmma per warpgroup, 64-row block and k16 step (tp::gemm_wgmma_ss
// / _rs), on the partition and tile layouts ops::plan_wgmma chose and layout_inference applied.
// Two statements: the issue (tp.async_call), which commits one wgmma group, and its wait
// (tp.async_wait), which names everything the group still reads or writes: the accumulator,
// the packed A registers (RS) or the A tile (SS), and the B tile. wgmma_waits moves the wait
// as late as those allow.
Stmt FragLowerer::wgmma_gemm(const GemmOpNode& n, const ops::WgmmaPlan& p, const FragLayout& cl) {
    if (cl.warps_m != p.warps_m || cl.warps_n != p.warps_n || cl.interleave != (p.m_blocks > 1)) {
        fail("T.gemm whose accumulator has another layout than its wgmma plan (" + cl.describe() + ")", n.span);
        return nullptr;
    }
    std::string why;
    auto shape = ops::gemm_shape(n, why);
    std::string T = n.A.buffer->dtype.cuda_name();
    Buffer b = mutate_buffer(n.B.buffer), c = local_of(n.C.buffer);
    std::string dims = std::to_string(shape->m) + ", " + std::to_string(shape->n) + ", " + std::to_string(shape->k) + ", " +
                       std::to_string(p.warps_m) + ", " + std::to_string(p.warps_n) + ", ";
    std::vector<Stmt> out;
    // clear_accum: the first k step overwrites the accumulator (scale-d = 0).
    const std::string zero = n.clear_accum ? ", true>" : ">";
    Expr caddr = buffer_addr(c, {int_imm(0)}, true, n.span), baddr = buffer_addr(b, {int_imm(0), int_imm(0)}, false, n.span);
    std::vector<Expr> args, in_flight = {caddr, baddr};
    std::string fn;
    if (p.rs && packed.count(n.A.buffer.get())) {
        fn = "tp::gemm_wgmma_rs_packed<" + dims + cuda_bool(n.transpose_B) + ", " + T + zero;
        Expr aaddr = buffer_addr(local_of(n.A.buffer), {int_imm(0)}, false, n.span);
        args = {aaddr, baddr, caddr, tid};
        in_flight.push_back(aaddr);
    } else if (p.rs) {
        fn = "tp::gemm_wgmma_rs<" + dims + cuda_bool(n.transpose_B) + ", " + T + ", " + local_of(n.A.buffer)->dtype.cuda_name() + zero;
        auto packed = std::make_shared<BufferNode>("tp_packed", DataType(DataType::UInt, 32),
                                                   std::vector<Expr>{int_imm(p.m_blocks * shape->k / 4)}, Scope::Local, n.span);
        packed_operands.push_back(packed);
        Expr paddr = buffer_addr(packed, {int_imm(0)}, true, n.span);
        args = {buffer_addr(local_of(n.A.buffer), {int_imm(0)}, false, n.span), baddr, caddr, paddr, tid};
        in_flight.push_back(paddr);
    } else {
        // fp8 operands of two formats name B's type after ZERO.
        const std::string TB = n.B.buffer->dtype.cuda_name();
        const std::string tail = TB == T ? zero : std::string(", ") + cuda_bool(n.clear_accum) + ", " + TB + ">";
        fn = "tp::gemm_wgmma_ss<" + dims + cuda_bool(n.transpose_A) + ", " + cuda_bool(n.transpose_B) + ", " + T + tail;
        Expr aaddr = buffer_addr(mutate_buffer(n.A.buffer), {int_imm(0), int_imm(0)}, false, n.span);
        args = {aaddr, baddr, caddr, tid};
        in_flight.push_back(aaddr);
    }
    args.insert(args.begin(), std::make_shared<StringImmNode>(fn, n.span));
    out.push_back(std::make_shared<EvaluateNode>(make_call("tp.async_call", args, DataType::void_(), n.span), n.span));
    in_flight.insert(in_flight.begin(), int_imm(0));
    out.push_back(std::make_shared<EvaluateNode>(make_call("tp.async_wait", in_flight, DataType::void_(), n.span), n.span));
    return make_seq(out, n.span);
}

// fp8 on mma.sync (sm_89+; check_resources rejects older targets): m16n8k32 on the 16-bit
// view of K-major tiles (tp::gemm_ss_fp8), so A must be [M][K] in shared memory and B [N][K].
Stmt FragLowerer::fp8_gemm(const GemmOpNode& n, const FragLayout& cl, const Stmt& s) {
    if (n.A.buffer->scope != Scope::Shared || n.B.buffer->scope != Scope::Shared || n.transpose_A || !n.transpose_B) {
        fail("fp8 T.gemm other than A [M][K] and B [N][K] (transpose_B=True) in shared memory: fp8 Tensor Cores read both "
             "operands K-major",
             n.span);
        return s;
    }
    std::string why;
    auto shape = ops::gemm_shape(n, why);
    if (!shape || shape->k % 32 != 0 || !one_dim_block) {
        fail(shape ? "fp8 T.gemm with K = " + std::to_string(shape->k) + ", not a multiple of 32" : "fp8 T.gemm: " + why, n.span);
        return s;
    }
    Buffer a = mutate_buffer(n.A.buffer), b = mutate_buffer(n.B.buffer), c = local_of(n.C.buffer);
    const bool sw = a->layout == "swizzle" && b->layout == "swizzle";
    std::string fn = "tp::gemm_ss_fp8<" + std::to_string(cl.bm) + ", " + std::to_string(cl.bn) + ", " + std::to_string(shape->k) + ", " +
                     std::to_string(cl.warps_m) + ", " + std::to_string(cl.warps_n) + ", " + n.A.buffer->dtype.cuda_name() + ", " +
                     n.B.buffer->dtype.cuda_name() + ", " + cuda_bool(sw) + ">";
    std::vector<Stmt> out;
    if (n.clear_accum)
        out.push_back(local_loop(cl.local_size(), "tp_f", [&](const Expr& i) -> Stmt {
            return std::make_shared<BufferStoreNode>(c, std::vector<Expr>{i}, float_imm(0.0), n.span);
        }, n.span));
    out.push_back(device_call(fn, {buffer_addr(a, {int_imm(0), int_imm(0)}, false, n.span), buffer_addr(b, {int_imm(0), int_imm(0)}, false, n.span),
                                   buffer_addr(c, {int_imm(0)}, true, n.span)},
                              n.span));
    return make_seq(out, n.span);
}

Stmt FragLowerer::visit_GemmOp(const GemmOpNode& n, const Stmt& s) {
    const FragLayout* cl = n.C.buffer->scope == Scope::Fragment ? layout_of(n.C.buffer) : nullptr;
    if (!cl || cl->kind != FragLayout::Acc) {
        fail("T.gemm into a " + std::string(scope_name(n.C.buffer->scope)) + " buffer", n.span);
        return s;
    }
    if (auto w = wgmma.find(&n); w != wgmma.end()) {
        Stmt st = wgmma_gemm(n, w->second, *cl);
        return st ? st : s;
    }
    DataType t = n.A.buffer->dtype;
    if (fp8_dtype(t) && fp8_dtype(n.B.buffer->dtype) && n.C.buffer->dtype == DataType::float32()) return fp8_gemm(n, *cl, s);
    if (!mma_dtype(t) || n.B.buffer->dtype != t || n.C.buffer->dtype != DataType::float32()) {
        fail("T.gemm on " + t.name() + " x " + n.B.buffer->dtype.name() + " -> " + n.C.buffer->dtype.name(), n.span);
        return s;
    }
    if (!one_dim_block) {
        fail("T.gemm in a kernel with a multi-dimensional thread block", n.span);
        return s;
    }
    if (n.B.buffer->scope != Scope::Shared || !whole_buffer(n.A) || !whole_buffer(n.B) || !whole_buffer(n.C) ||
        n.A.buffer->shape.size() != 2 || n.B.buffer->shape.size() != 2) {
        fail("T.gemm on parts of buffers or with B outside shared memory", n.span);
        return s;
    }
    int64_t bk = *as_const_int(n.A.buffer->shape[n.transpose_A ? 0 : 1]);
    int64_t bk_b = *as_const_int(n.B.buffer->shape[n.transpose_B ? 1 : 0]);
    if (bk != bk_b || bk % 16 != 0) {
        fail("T.gemm with K = " + std::to_string(bk) + " (A) and " + std::to_string(bk_b) + " (B), not equal multiples of 16", n.span);
        return s;
    }
    std::string T = t.cuda_name();
    Buffer a = mutate_buffer(n.A.buffer), b = mutate_buffer(n.B.buffer), c = local_of(n.C.buffer);
    std::string dims = std::to_string(cl->bm) + ", " + std::to_string(cl->bn) + ", " + std::to_string(bk) + ", " +
                       std::to_string(cl->warps_m) + ", " + std::to_string(cl->warps_n) + ", ";
    std::vector<Stmt> out;
    if (n.clear_accum)
        out.push_back(local_loop(cl->local_size(), "tp_f", [&](const Expr& i) -> Stmt {
            return std::make_shared<BufferStoreNode>(c, std::vector<Expr>{i}, float_imm(0.0), n.span);
        }, n.span));
    Expr caddr = buffer_addr(c, {int_imm(0)}, true, n.span);
    Expr baddr = buffer_addr(b, {int_imm(0), int_imm(0)}, false, n.span);
    if (n.A.buffer->scope == Scope::Shared) {
        bool sw = a->layout == "swizzle" && b->layout == "swizzle";
        std::string fn = "tp::gemm_ss<" + dims + cuda_bool(n.transpose_A) + ", " + cuda_bool(n.transpose_B) + ", " + T + ", " + cuda_bool(sw) + ">";
        out.push_back(device_call(fn, {buffer_addr(a, {int_imm(0), int_imm(0)}, false, n.span), baddr, caddr}, n.span));
    } else {
        const FragLayout* al = layout_of(n.A.buffer);
        bool ok = al && al->kind == FragLayout::Acc && !n.transpose_A && cl->warps_n == 1 && al->warps_n == 1 &&
                  al->bm == cl->bm && al->warps_m == cl->warps_m && al->bn == bk;
        if (!ok) {
            fail("T.gemm with A in registers and a warp grid that splits columns (use policy=T.GemmWarpPolicy.FullRow)", n.span);
            return s;
        }
        std::string fn = "tp::gemm_rs<" + dims + cuda_bool(n.transpose_B) + ", " + T + ", " + local_of(n.A.buffer)->dtype.cuda_name() +
                         ", " + cuda_bool(b->layout == "swizzle") + ">";
        out.push_back(device_call(fn, {buffer_addr(local_of(n.A.buffer), {int_imm(0)}, false, n.span), baddr, caddr}, n.span));
    }
    return make_seq(out, n.span);
}

Stmt FragLowerer::visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) {
    const FragLayout* sl = layout_of(n.src);
    const FragLayout* dl = layout_of(n.dst);
    bool types_ok = reduce_dtype(n.src->dtype) && reduce_dtype(n.dst->dtype);
    if (sl && sl->kind == FragLayout::Striped && dl && dl->kind == FragLayout::Replicated && types_ok &&
        n.src->shape.size() == 2 && one_dim_block && threads % 32 == 0) {
        std::string fn = "tp::reduce_striped<" + std::to_string(*as_const_int(n.src->shape[0])) + ", " +
                         std::to_string(*as_const_int(n.src->shape[1])) + ", " + std::to_string(threads) + ", " +
                         std::to_string(n.dim) + ", " + reduce_op_name(n.reduce_kind) + ", " + cuda_bool(n.clear) +
                         (sl->vec > 1 ? ", " + std::to_string(sl->vec) : std::string()) + ">";
        return device_call(fn, {buffer_addr(local_of(n.src), {int_imm(0)}, false, n.span), buffer_addr(local_of(n.dst), {int_imm(0)}, true, n.span),
                                buffer_addr(scratch, {int_imm(0)}, true, n.span), tid}, n.span);
    }
    FragLayout::Kind want = n.dim == 1 ? FragLayout::Row : FragLayout::Col;
    if (!sl || sl->kind != FragLayout::Acc || !dl || dl->kind != want || !types_ok || n.src->shape.size() != 2 || !one_dim_block) {
        fail(std::string("T.reduce_") + reduce_kind_name(n.reduce_kind) + " from a " + n.src->dtype.name() + " " +
                 (sl ? sl->describe() : "non-fragment") + " buffer into a " + n.dst->dtype.name() + " " +
                 (dl ? dl->describe() : "non-fragment") + " buffer",
             n.span);
        return s;
    }
    bool cross = n.dim == 1 ? sl->warps_n > 1 : sl->warps_m > 1;
    Expr scr = cross ? buffer_addr(scratch, {int_imm(0)}, true, n.span) : make_call("tp.null", {}, DataType(DataType::Handle, 64), n.span);
    std::string fn = std::string(n.dim == 1 ? "tp::reduce_rows<" : "tp::reduce_cols<") + sl->acc_type() + ", " +
                     reduce_op_name(n.reduce_kind) + ", " + cuda_bool(n.clear) + ">";
    return device_call(fn, {buffer_addr(local_of(n.src), {int_imm(0)}, false, n.span),
                            buffer_addr(local_of(n.dst), {int_imm(0)}, true, n.span), scr, tid}, n.span);
}

}  // namespace tp::transform::frag_lowering
