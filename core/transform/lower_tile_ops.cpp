// lower_tile_ops (see lower_tile_ops.h). Regions pair up by their non-unit dims in order
// (TileLang's rule: A[by*128:+128, k*32:+32] -> A_shared[0:128, 0:32], and a row
// A[i, 0:64] -> s[0:64]). Global accesses outside the buffer are guarded, so partial tiles
// at the edges load zeros and skip stores.
#include "transform/lower_tile_ops.h"

#include <algorithm>
#include <set>

#include "ir/functor.h"
#include "ops/copy.h"
#include "ops/gemm.h"
#include "transform/producer_consumer.h"
#include "transform/shared_budget.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

class TileOpLowerer : public IRMutator {
public:
    DiagnosticEngine& diags;
    Expr tid;
    int64_t threads = 0;
    bool one_dim_block = false;
    explicit TileOpLowerer(DiagnosticEngine& d) : diags(d) {}
    // TMA stores of shared tiles (see lower_tile_ops.h): the target allows them, the kernel's
    // parameters and the tensors it reads, and the tensor maps, earlier passes' first.
    const Target* target = nullptr;
    bool tma_store = false;
    std::set<const BufferNode*> params, read_globals;
    std::vector<std::string> maps;
    std::set<std::string> stored;  // parameters TMA stores write

    Stmt tma_tile_store(const CopyOpNode& n) {
        if (!tma_store || !one_dim_block || n.src.buffer->scope != Scope::Shared || n.dst.buffer->scope != Scope::Global) return nullptr;
        if (!params.count(n.dst.buffer.get()) || n.src.buffer->shape.size() != 2) return nullptr;
        // TMA reads the layouts it writes: plan the mirror-image load.
        CopyOpNode load(n.dst, n.src, n.span);
        ops::TmaLoadPlan p = ops::plan_tma_load(load, *target);
        if (!p.ok) {
            diags.report(DiagKind::FastPathNotTaken, n.span, {"a TMA store", p.why, "the threads store the tile"});
            return nullptr;
        }
        const std::string key = ops::tensor_map_key(n.dst.buffer->name, p);
        auto it = std::find(maps.begin(), maps.end(), key);
        const int64_t map = it - maps.begin();
        if (it == maps.end()) maps.push_back(key);
        stored.insert(n.dst.buffer->name);
        const bool wait_writes = read_globals.count(n.dst.buffer.get()) > 0;
        std::string fn = "tp::tile_store_tma<" + std::to_string(p.coords.size()) + ", " + std::to_string(p.boxes) + ", " +
                         std::to_string(p.box_cols) + ", " + std::to_string(p.rows * p.box_cols) + ", " + cuda_bool(wait_writes) + ">";
        std::vector<Expr> args = {make_call("tp.tma_desc", {int_imm(map)}, DataType(DataType::Handle, 64), n.span),
                                  buffer_addr(n.src.buffer, {int_imm(0), int_imm(0)}, false, n.span), tid};
        args.insert(args.end(), p.coords.begin(), p.coords.end());
        // The writers' fence comes before the barrier insert_syncs puts ahead of the reading call.
        Stmt fence = std::make_shared<EvaluateNode>(
            make_call("tp.sync_call", {std::make_shared<StringImmNode>("tp::fence_proxy_async", n.span)}, DataType::void_(), n.span), n.span);
        return make_seq({fence, device_call(fn, args, n.span)}, n.span);
    }

    // Global -> whole 2-D shared tile: tp::copy_g2s (16-byte cp.async chunks, zero-filled
    // past the buffer's edge, the tile's swizzle), then commit and wait for it. The software
    // pipeline (pipeline_loops) turns these into in-flight producers.
    Stmt async_tile_copy(const CopyOpNode& n) {
        const BufferRegion &src = n.src, &dst = n.dst;
        if (!one_dim_block || src.buffer->scope != Scope::Global || dst.buffer->scope != Scope::Shared) return nullptr;
        if (src.buffer->dtype != dst.buffer->dtype || dst.buffer->shape.size() != 2 || !whole_buffer(dst)) return nullptr;
        auto t = tile_2d(src);
        auto rows = as_const_int(dst.buffer->shape[0]), cols = as_const_int(dst.buffer->shape[1]);
        if (!t || !rows || !cols || t->rows != *rows || t->cols != *cols || (*cols * src.buffer->dtype.bytes()) % 16 != 0) return nullptr;
        std::string fn = "tp::copy_g2s<" + std::to_string(*rows) + ", " + std::to_string(*cols) + ", " + std::to_string(threads) +
                         ", " + src.buffer->dtype.cuda_name() + ", " + ops::smem_layout_arg(dst.buffer) +
                         (tile_in_bounds(src, *t, 16 / src.buffer->dtype.bytes()) ? ", true>" : ">");
        return make_seq({device_call(fn, {buffer_addr(dst.buffer, {int_imm(0), int_imm(0)}, true, n.span), buffer_addr(src.buffer, t->origin, false, n.span),
                                          t->ld, t->rows_valid, t->cols_valid, tid}, n.span),
                         device_call("tp::cp_async_commit", {}, n.span), device_call("tp::cp_async_wait<0>", {}, n.span)}, n.span);
    }

    // Whole 2-D shared tile -> global: tp::copy_s2g (16-byte stores where a chunk is whole
    // and aligned, element stores at the edges; reads the tile through its swizzle).
    Stmt tile_store(const CopyOpNode& n) {
        const BufferRegion &src = n.src, &dst = n.dst;
        if (!one_dim_block || src.buffer->scope != Scope::Shared || dst.buffer->scope != Scope::Global) return nullptr;
        if (src.buffer->dtype != dst.buffer->dtype || src.buffer->shape.size() != 2 || !whole_buffer(src)) return nullptr;
        auto t = tile_2d(dst);
        auto rows = as_const_int(src.buffer->shape[0]), cols = as_const_int(src.buffer->shape[1]);
        if (!t || !rows || !cols || t->rows != *rows || t->cols != *cols || (*cols * src.buffer->dtype.bytes()) % 16 != 0) return nullptr;
        std::string fn = "tp::copy_s2g<" + std::to_string(*rows) + ", " + std::to_string(*cols) + ", " + std::to_string(threads) +
                         ", " + src.buffer->dtype.cuda_name() + ", " + ops::smem_layout_arg(src.buffer) + ">";
        return device_call(fn, {buffer_addr(src.buffer, {int_imm(0), int_imm(0)}, false, n.span), buffer_addr(dst.buffer, t->origin, true, n.span),
                                t->ld, t->rows_valid, t->cols_valid, tid}, n.span);
    }

protected:
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        threads = n.num_threads();
        std::vector<int64_t> th = n.threads.empty() ? std::vector<int64_t>{1} : n.threads;
        one_dim_block = threads == th[0];
        std::vector<Var> tv = n.thread_vars;
        if (tv.empty()) tv.push_back(std::make_shared<VarNode>("tx", DataType::int32(), VarKind::ThreadIdx, n.span));
        tid = tv[0];
        Stmt body = mutate(n.body);
        if (body == n.body) return s;
        return std::make_shared<KernelLaunchNode>(n.grid, n.block_vars, th, tv, body, n.span);
    }
    // The consumers of a warp-specialized kernel run the remaining tile ops on their threads.
    Stmt visit_WarpRoles(const WarpRolesNode& n, const Stmt& s) override {
        int64_t saved = threads;
        threads = n.consumer_threads;
        Stmt out = with_consumer(n, s, [&](const Stmt& c) { return mutate(c); });
        threads = saved;
        return out;
    }
    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        if (Stmt t = async_tile_copy(n)) return t;
        if (Stmt t = tma_tile_store(n)) return t;
        if (Stmt t = tile_store(n)) return t;
        auto sd = non_unit_dims(n.src), dd = non_unit_dims(n.dst);
        bool ok = sd.size() == dd.size();
        for (size_t i = 0; ok && i < sd.size(); ++i) ok = same_extent(n.src.region[sd[i]].extent, n.dst.region[dd[i]].extent);
        if (!ok) {
            diags.report(DiagKind::NotYetLowered, n.span, {"T.copy between regions of different shapes", "CUDA"});
            return s;
        }
        std::vector<Expr> extents;
        for (size_t d : dd) extents.push_back(n.dst.region[d].extent);
        auto vars = nest_vars(extents.size(), n.span);
        auto [sidx, scond] = region_access(n.src, vars);
        auto [didx, dcond] = region_access(n.dst, vars);
        Expr value = make_cast(n.dst.buffer->dtype, std::make_shared<BufferLoadNode>(n.src.buffer, sidx, n.span), n.span);
        if (scond) value = make_select(scond, value, make_cast(n.dst.buffer->dtype, int_imm(0)), n.span);
        Stmt body = std::make_shared<BufferStoreNode>(n.dst.buffer, didx, value, n.span);
        if (dcond) body = std::make_shared<IfThenElseNode>(dcond, body, nullptr, n.span);
        return parallel_nest(vars, extents, body, n.span);
    }
    Stmt visit_FillOp(const FillOpNode& n, const Stmt&) override {
        std::vector<Expr> extents;
        for (size_t d : non_unit_dims(n.dst)) extents.push_back(n.dst.region[d].extent);
        auto vars = nest_vars(extents.size(), n.span);
        auto [didx, dcond] = region_access(n.dst, vars);
        Stmt body = std::make_shared<BufferStoreNode>(n.dst.buffer, didx, make_cast(n.dst.buffer->dtype, n.value, n.span), n.span);
        if (dcond) body = std::make_shared<IfThenElseNode>(dcond, body, nullptr, n.span);
        return parallel_nest(vars, extents, body, n.span);
    }
    Stmt visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override {
        if (auto* v = std::get_if<Expr>(&n.src)) {
            auto [idx, cond] = region_access(n.dst, {});
            Expr target = std::make_shared<BufferLoadNode>(n.dst.buffer, idx, n.span);
            Stmt body = std::make_shared<EvaluateNode>(
                make_call("atomic_add", {target, make_cast(n.dst.buffer->dtype, *v)}, DataType::void_(), n.span), n.span);
            return cond ? std::make_shared<IfThenElseNode>(cond, body, nullptr, n.span) : body;
        }
        const BufferRegion& src = std::get<BufferRegion>(n.src);
        auto sd = non_unit_dims(src), dd = non_unit_dims(n.dst);
        bool ok = sd.size() == dd.size();
        for (size_t i = 0; ok && i < sd.size(); ++i) ok = same_extent(src.region[sd[i]].extent, n.dst.region[dd[i]].extent);
        if (!ok) {
            diags.report(DiagKind::NotYetLowered, n.span, {"T.atomic_add between regions of different shapes", "CUDA"});
            return s;
        }
        std::vector<Expr> extents;
        for (size_t d : dd) extents.push_back(n.dst.region[d].extent);
        auto vars = nest_vars(extents.size(), n.span);
        auto [sidx, scond] = region_access(src, vars);
        auto [didx, dcond] = region_access(n.dst, vars);
        Expr value = make_cast(n.dst.buffer->dtype, std::make_shared<BufferLoadNode>(src.buffer, sidx, n.span));
        Expr target = std::make_shared<BufferLoadNode>(n.dst.buffer, didx, n.span);
        Stmt body = std::make_shared<EvaluateNode>(make_call("atomic_add", {target, value}, DataType::void_(), n.span), n.span);
        Expr cond = scond && dcond ? make_binary(BinaryOp::And, scond, dcond) : (scond ? scond : dcond);
        if (cond) body = std::make_shared<IfThenElseNode>(cond, body, nullptr, n.span);
        return parallel_nest(vars, extents, body, n.span);
    }
    Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        diags.report(DiagKind::NotYetLowered, n.span, {"T.gemm", "CUDA"});
        return s;
    }
    Stmt visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override {
        diags.report(DiagKind::NotYetLowered, n.span, {std::string("T.reduce_") + reduce_kind_name(n.reduce_kind), "CUDA"});
        return s;
    }
};

}  // namespace

PrimFuncPtr lower_tile_ops(const PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags) {
    int before = diags.error_count();
    TileOpLowerer l(diags);
    auto flag = [&](const char* k) {
        auto it = func->attrs.find(k);
        return it != func->attrs.end() && it->second == "true";
    };
    l.target = &target;
    l.tma_store = target.has_tma() && aligned_shared_tiles(*func) && !flag("tl.disable_tma_lower") && !flag("tp.disable_tma_store");
    for (const auto& p : func->params)
        if (p.buffer) l.params.insert(p.buffer.get());
    l.read_globals = global_reads(*func);
    l.maps = tensor_map_keys(*func);
    const size_t earlier = l.maps.size();
    PrimFuncPtr out = mutate_func(func, l);
    if (out && l.maps.size() > earlier) {
        auto f = std::make_shared<PrimFunc>(*out);
        set_tensor_maps(*f, l.maps);
        add_tma_store_params(*f, {l.stored.begin(), l.stored.end()});
        out = f;
    }
    return diags.error_count() == before ? out : nullptr;
}

}  // namespace tp::transform
