// lower_tile_ops (see lower_tile_ops.h): the traversal that hands each tile op left after
// layout_inference to its CUDA lowering (codegen/cuda/ops/<op>.cpp) with the block it runs in,
// and records the tensor maps the TMA stores among them use.
#include "transform/lower_tile_ops.h"

#include "codegen/cuda/ops/lower_op.h"
#include "ir/functor.h"
#include "transform/producer_consumer.h"
#include "transform/shared_budget.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

class TileOpLowerer : public IRMutator {
public:
    codegen::cuda::ThreadLowering cx;
    explicit TileOpLowerer(DiagnosticEngine& d) : cx(d) {}

protected:
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        cx.threads = n.num_threads();
        std::vector<int64_t> th = n.threads.empty() ? std::vector<int64_t>{1} : n.threads;
        cx.one_dim_block = cx.threads == th[0];
        std::vector<Var> tv = n.thread_vars;
        if (tv.empty()) tv.push_back(std::make_shared<VarNode>("tx", DataType::int32(), VarKind::ThreadIdx, n.span));
        cx.tid = tv[0];
        Stmt body = mutate(n.body);
        if (body == n.body) return s;
        return std::make_shared<KernelLaunchNode>(n.grid, n.block_vars, th, tv, body, n.span);
    }
    // The consumers of a warp-specialized kernel run the remaining tile ops on their threads.
    Stmt visit_WarpRoles(const WarpRolesNode& n, const Stmt& s) override {
        int64_t saved = cx.threads;
        cx.threads = n.consumer_threads;
        Stmt out = with_consumer(n, s, [&](const Stmt& c) { return mutate(c); });
        cx.threads = saved;
        return out;
    }
    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override { return codegen::cuda::lower_copy(n, s, cx); }
    Stmt visit_FillOp(const FillOpNode& n, const Stmt&) override { return codegen::cuda::lower_fill(n, cx); }
    Stmt visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override { return codegen::cuda::lower_atomic_add(n, s, cx); }
    Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        cx.diags.report(DiagKind::NotYetLowered, n.span, {"T.gemm", "CUDA"});
        return s;
    }
    Stmt visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override {
        cx.diags.report(DiagKind::NotYetLowered, n.span, {std::string("T.reduce_") + reduce_kind_name(n.reduce_kind), "CUDA"});
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
    l.cx.target = &target;
    l.cx.tma_store = target.has_tma() && aligned_shared_tiles(*func) && !flag("tl.disable_tma_lower") && !flag("tp.disable_tma_store");
    for (const auto& p : func->params)
        if (p.buffer) l.cx.params.insert(p.buffer.get());
    l.cx.read_globals = global_reads(*func);
    l.cx.maps = tensor_map_keys(*func);
    const size_t earlier = l.cx.maps.size();
    PrimFuncPtr out = mutate_func(func, l);
    if (out && l.cx.maps.size() > earlier) {
        auto f = std::make_shared<PrimFunc>(*out);
        set_tensor_maps(*f, l.cx.maps);
        add_tma_store_params(*f, {l.cx.stored.begin(), l.cx.stored.end()});
        out = f;
    }
    return diags.error_count() == before ? out : nullptr;
}

}  // namespace tp::transform
