// T.copy in CUDA (see lower_op.h). With a fragment on one side (layout_inference's rewrite):
// register-to-register conversions, accumulator <-> memory through the templates (paired
// stores, swizzle-aware shared tiles, TMA-store epilogues on sm_90), striped fragments in
// vector runs, else an element-wise nest over the registers. Between shared and global tiles
// (lower_tile_ops): cp.async tile loads (tp::copy_g2s), TMA tile stores on sm_90, vectorised
// tile stores (tp::copy_s2g), else a T.Parallel nest. Regions pair by their non-unit dims
// (TileLang's rule: A[by*128:+128, k*32:+32] -> A_shared[0:128, 0:32]); global accesses
// outside the tensor are guarded, so partial tiles at the edges load zeros and skip stores.
#include <algorithm>

#include "codegen/cuda/ops/lower_op.h"
#include "ops/copy.h"
#include "transform/striped_copy.h"
#include "transform/tile_lowering.h"

namespace tp::codegen::cuda {

using namespace ir;
using namespace transform;

namespace {

// T.copy(accumulator -> global) as TMA stores of staged panels (tp::frag_store_tma), or null
// (with a remark on a TMA target) when the copy, layout or tensor do not allow it.
Stmt tma_store_copy(const CopyOpNode& n, const FragLayout& acc, const Buffer& frag, FragmentLowering& cx) {
    // Only wgmma accumulators: a warpgroup owns whole 64-row blocks of them.
    const int64_t mt = acc.bm / (16 * std::max(1, acc.warps_m));
    if (acc.warps_m % 4 != 0 || (mt > 1 && !acc.interleave)) return nullptr;
    auto remark = [&](const std::string& why) {
        cx.diags.report(DiagKind::FastPathNotTaken, n.span, {"a TMA store", why, "the threads store the fragment"});
        return nullptr;
    };
    if (!cx.tma_store) return cx.tma_store_why.empty() ? nullptr : remark(cx.tma_store_why);
    if (!cx.params.count(n.dst.buffer.get()))
        return remark("`" + n.dst.buffer->name + "` is not a kernel parameter, so TMA has no tensor map of it");
    ops::TmaStorePlan plan = ops::plan_tma_store(n, *cx.target, acc.bm, acc.bn);
    if (!plan.ok) return remark(plan.why);
    if ((acc.bn / acc.warps_n) % plan.panel_cols != 0)
        return remark("each warpgroup's " + std::to_string(acc.bn / acc.warps_n) + " columns are not whole 128-byte panels");
    std::string key = ops::tensor_map_key(n.dst.buffer->name, plan.box, 128);
    auto it = std::find(cx.tma_maps.begin(), cx.tma_maps.end(), key);
    const int64_t map = it - cx.tma_maps.begin();
    if (it == cx.tma_maps.end()) cx.tma_maps.push_back(key);
    cx.tma_stored.insert(n.dst.buffer.get());
    if (!cx.store_stage) {  // kStoreStageBytes (tp_store_tma.cuh) per warpgroup, 2-D so it is 1024-byte aligned
        auto stage = std::make_shared<BufferNode>("tp_store_stage", DataType(DataType::UInt, 8),
                                                  std::vector<Expr>{int_imm(cx.threads / 128 * 128), int_imm(128)}, Scope::Shared, n.span);
        stage->self_ordered = true;  // a warpgroup's stores wait only for that warpgroup
        cx.store_stage = stage;
    }
    std::vector<Expr> args = {buffer_addr(frag, {int_imm(0)}, false, n.span), buffer_addr(cx.store_stage, {int_imm(0), int_imm(0)}, true, n.span),
                              make_call("tp.tma_desc", {int_imm(map)}, DataType(DataType::Handle, 64), n.span), cx.tid};
    args.insert(args.end(), plan.coords.begin(), plan.coords.end());
    // A tensor the kernel also reads must be complete in memory when the call returns.
    const bool wait_writes = cx.read_globals.count(n.dst.buffer.get()) > 0;
    std::string fn = "tp::frag_store_tma<" + acc.acc_type() + ", " + n.dst.buffer->dtype.cuda_name() + ", " +
                     std::to_string(plan.coords.size()) + ", " + std::to_string(plan.row_coord) + (wait_writes ? ", true>" : ">");
    return device_call(fn, args, n.span);
}

// Fragment -> fragment of one layout, whole: a conversion per register, packed or in pairs
// where the types allow.
Stmt register_copy(const CopyOpNode& n, const FragLayout& sl, FragmentLowering& cx) {
    Buffer sb = cx.local_of(n.src.buffer), db = cx.local_of(n.dst.buffer);
    // float -> packed f16 / bf16 pairs of an RS wgmma operand (see FragmentLowering::packed).
    if (cx.packed.count(n.dst.buffer.get()) && sb->dtype == DataType::float32())
        return device_call("tp::frag_pack_pairs<" + std::to_string(sl.local_size()) + ", " + n.dst.buffer->dtype.cuda_name() + ">",
                           {buffer_addr(sb, {int_imm(0)}, false, n.span), buffer_addr(db, {int_imm(0)}, true, n.span)}, n.span);
    // float -> f16 / bf16 in pairs: one conversion instruction per two elements.
    bool pairs = sb->dtype == DataType::float32() && (db->dtype == DataType::float16() || db->dtype == DataType::bfloat16()) &&
                 sl.local_size() % 2 == 0;
    if (pairs)
        return device_call("tp::frag_cvt_pairs<" + std::to_string(sl.local_size()) + ", " + db->dtype.cuda_name() + ">",
                           {buffer_addr(sb, {int_imm(0)}, false, n.span), buffer_addr(db, {int_imm(0)}, true, n.span)}, n.span);
    return cx.local_loop(sl.local_size(), "tp_f", [&](const Expr& i) -> Stmt {
        Expr v = make_cast(db->dtype, std::make_shared<BufferLoadNode>(sb, std::vector<Expr>{i}, n.span), n.span);
        return std::make_shared<BufferStoreNode>(db, std::vector<Expr>{i}, v, n.span);
    }, n.span);
}

// Accumulator <-> memory through the templates (paired stores, swizzle-aware smem), or null.
Stmt accumulator_copy(const CopyOpNode& n, const FragLayout& acc, bool sf, FragmentLowering& cx) {
    const BufferRegion& frag = sf ? n.src : n.dst;
    const BufferRegion& mem = sf ? n.dst : n.src;
    auto t = tile_2d(mem);
    if (!t || t->rows != acc.bm || t->cols != acc.bn) return nullptr;
    Buffer fb = cx.local_of(frag.buffer), mb = cx.local_of(mem.buffer);
    Expr faddr = buffer_addr(fb, {int_imm(0)}, !sf, n.span);
    Expr maddr = buffer_addr(mb, t->origin, sf, n.span);
    if (mem.buffer->scope == Scope::Global && sf && cx.target && cx.target->has_tma())
        if (Stmt st = tma_store_copy(n, acc, fb, cx)) return st;
    if (mem.buffer->scope == Scope::Global) {
        std::string fn = sf ? "tp::frag_store_global<" : "tp::frag_load_global<";
        fn += acc.acc_type() + (sf && tile_in_bounds(mem, *t, 2) ? ", true>" : ">");
        return device_call(fn, {faddr, maddr, t->ld, t->rows_valid, t->cols_valid, cx.tid}, n.span);
    }
    if (mem.buffer->scope == Scope::Shared && whole_buffer(mem) && mem.buffer->shape.size() == 2) {
        // A packed RS operand (see FragmentLowering::packed) loads its pairs as words.
        const bool packed = !sf && cx.packed.count(frag.buffer.get());
        std::string fn = sf ? "tp::frag_store_smem<" : (packed ? "tp::frag_load_smem_packed<" : "tp::frag_load_smem<");
        fn += acc.acc_type() + ", " + std::to_string(t->cols) + ", " + ops::smem_layout_arg(mb) + ">";
        return device_call(fn, {faddr, maddr, cx.tid}, n.span);
    }
    return nullptr;
}

// Whole shared tile -> global on sm_90 in a kernel whose tiles are 1024-byte aligned: a fence,
// then one thread's TMA stores (tp::tile_store_tma), or null (with a remark when TMA refuses).
Stmt tma_tile_store(const CopyOpNode& n, ThreadLowering& cx) {
    if (!cx.tma_store || !cx.one_dim_block || n.src.buffer->scope != Scope::Shared || n.dst.buffer->scope != Scope::Global) return nullptr;
    if (!cx.params.count(n.dst.buffer.get()) || n.src.buffer->shape.size() != 2) return nullptr;
    // TMA reads the layouts it writes: plan the mirror-image load.
    CopyOpNode load(n.dst, n.src, n.span);
    ops::TmaLoadPlan p = ops::plan_tma_load(load, *cx.target);
    if (!p.ok) {
        cx.diags.report(DiagKind::FastPathNotTaken, n.span, {"a TMA store", p.why, "the threads store the tile"});
        return nullptr;
    }
    const std::string key = ops::tensor_map_key(n.dst.buffer->name, p);
    auto it = std::find(cx.maps.begin(), cx.maps.end(), key);
    const int64_t map = it - cx.maps.begin();
    if (it == cx.maps.end()) cx.maps.push_back(key);
    cx.stored.insert(n.dst.buffer->name);
    const bool wait_writes = cx.read_globals.count(n.dst.buffer.get()) > 0;
    std::string fn = "tp::tile_store_tma<" + std::to_string(p.coords.size()) + ", " + std::to_string(p.boxes) + ", " +
                     std::to_string(p.box_cols) + ", " + std::to_string(p.rows * p.box_cols) + ", " + cuda_bool(wait_writes) + ">";
    std::vector<Expr> args = {make_call("tp.tma_desc", {int_imm(map)}, DataType(DataType::Handle, 64), n.span),
                              buffer_addr(n.src.buffer, {int_imm(0), int_imm(0)}, false, n.span), cx.tid};
    args.insert(args.end(), p.coords.begin(), p.coords.end());
    // The writers' fence comes before the barrier insert_syncs puts ahead of the reading call.
    Stmt fence = std::make_shared<EvaluateNode>(
        make_call("tp.sync_call", {std::make_shared<StringImmNode>("tp::fence_proxy_async", n.span)}, DataType::void_(), n.span), n.span);
    return make_seq({fence, device_call(fn, args, n.span)}, n.span);
}

// Global -> whole 2-D shared tile: tp::copy_g2s (16-byte cp.async chunks, zero-filled past the
// buffer's edge, the tile's swizzle), then commit and wait for it. A 1-D shared buffer is a
// one-row tile (a layer norm's gamma and beta vectors: 16-byte chunks, not one element a
// thread). The software pipeline (pipeline_loops) turns these into in-flight producers.
Stmt async_tile_copy(const CopyOpNode& n, ThreadLowering& cx) {
    const BufferRegion &src = n.src, &dst = n.dst;
    if (!cx.one_dim_block || src.buffer->scope != Scope::Global || dst.buffer->scope != Scope::Shared) return nullptr;
    const size_t rank = dst.buffer->shape.size();
    if (src.buffer->dtype != dst.buffer->dtype || (rank != 1 && rank != 2) || !whole_buffer(dst)) return nullptr;
    auto t = tile_2d(src);
    auto rows = rank == 2 ? as_const_int(dst.buffer->shape[0]) : std::optional<int64_t>(1), cols = as_const_int(dst.buffer->shape.back());
    if (!t || !rows || !cols || t->rows != *rows || t->cols != *cols || (*cols * src.buffer->dtype.bytes()) % 16 != 0) return nullptr;
    const std::vector<Expr> dst_origin(rank, int_imm(0));
    std::string fn = "tp::copy_g2s<" + std::to_string(*rows) + ", " + std::to_string(*cols) + ", " + std::to_string(cx.threads) + ", " +
                     src.buffer->dtype.cuda_name() + ", " + ops::smem_layout_arg(dst.buffer) +
                     (tile_in_bounds(src, *t, 16 / src.buffer->dtype.bytes()) ? ", true>" : ">");
    return make_seq({device_call(fn,
                                 {buffer_addr(dst.buffer, dst_origin, true, n.span), buffer_addr(src.buffer, t->origin, false, n.span), t->ld,
                                  t->rows_valid, t->cols_valid, cx.tid},
                                 n.span),
                     device_call("tp::cp_async_commit", {}, n.span), device_call("tp::cp_async_wait<0>", {}, n.span)},
                    n.span);
}

// Whole 2-D shared tile -> global: tp::copy_s2g (16-byte stores where a chunk is whole and
// aligned, element stores at the edges; reads the tile through its swizzle).
Stmt tile_store(const CopyOpNode& n, ThreadLowering& cx) {
    const BufferRegion &src = n.src, &dst = n.dst;
    if (!cx.one_dim_block || src.buffer->scope != Scope::Shared || dst.buffer->scope != Scope::Global) return nullptr;
    if (src.buffer->dtype != dst.buffer->dtype || src.buffer->shape.size() != 2 || !whole_buffer(src)) return nullptr;
    auto t = tile_2d(dst);
    auto rows = as_const_int(src.buffer->shape[0]), cols = as_const_int(src.buffer->shape[1]);
    if (!t || !rows || !cols || t->rows != *rows || t->cols != *cols || (*cols * src.buffer->dtype.bytes()) % 16 != 0) return nullptr;
    std::string fn = "tp::copy_s2g<" + std::to_string(*rows) + ", " + std::to_string(*cols) + ", " + std::to_string(cx.threads) + ", " +
                     src.buffer->dtype.cuda_name() + ", " + ops::smem_layout_arg(src.buffer) + ">";
    return device_call(fn, {buffer_addr(src.buffer, {int_imm(0), int_imm(0)}, false, n.span), buffer_addr(dst.buffer, t->origin, true, n.span),
                            t->ld, t->rows_valid, t->cols_valid, cx.tid}, n.span);
}

}  // namespace

Stmt lower_copy(const CopyOpNode& n, const Stmt& s, FragmentLowering& cx) {
    bool sf = n.src.buffer->scope == Scope::Fragment, df = n.dst.buffer->scope == Scope::Fragment;
    if (!sf && !df) return nullptr;
    const FragLayout* sl = sf ? cx.layout_of(n.src.buffer) : nullptr;
    const FragLayout* dl = df ? cx.layout_of(n.dst.buffer) : nullptr;
    if (sf && df && sl && dl && *sl == *dl && whole_buffer(n.src) && whole_buffer(n.dst)) return register_copy(n, *sl, cx);
    const FragLayout* one = sf && !df ? sl : (df && !sf ? dl : nullptr);  // the fragment of a fragment <-> memory copy
    const BufferRegion& frag = sf ? n.src : n.dst;
    const BufferRegion& mem = sf ? n.dst : n.src;
    if (one && one->kind == FragLayout::Acc && whole_buffer(frag) && cx.one_dim_block)
        if (Stmt st = accumulator_copy(n, *one, sf, cx)) return st;
    // Striped fragment <-> global memory in runs of V: one vector access per run.
    if (one && one->kind == FragLayout::Striped && one->vec > 1 && cx.one_dim_block) {
        if (Stmt v = striped_global_copy(frag, mem, *one, cx.local_of(frag.buffer), cx.local_of(mem.buffer), df, cx.tid, n.span)) return v;
    }
    Stmt nest = copy_nest(n.src, n.dst, n.span);
    if (!nest) {
        cx.fail("T.copy between regions of different shapes", n.span);
        return s;
    }
    return cx.rewrite(nest);
}

Stmt lower_copy(const CopyOpNode& n, const Stmt& s, ThreadLowering& cx) {
    if (Stmt t = async_tile_copy(n, cx)) return t;
    if (Stmt t = tma_tile_store(n, cx)) return t;
    if (Stmt t = tile_store(n, cx)) return t;
    Stmt nest = copy_nest(n.src, n.dst, n.span);
    if (!nest) {
        cx.diags.report(DiagKind::NotYetLowered, n.span, {"T.copy between regions of different shapes", "CUDA"});
        return s;
    }
    return nest;
}

}  // namespace tp::codegen::cuda
