// lower_tile_ops (see lower_tile_ops.h). Regions pair up by their non-unit dims in order
// (TileLang's rule: A[by*128:+128, k*32:+32] -> A_shared[0:128, 0:32], and a row
// A[i, 0:64] -> s[0:64]). Global accesses outside the buffer are guarded, so partial tiles
// at the edges load zeros and skip stores.
#include "transform/lower_tile_ops.h"

#include "ir/functor.h"

namespace tp::transform {

using namespace ir;

namespace {

std::vector<size_t> non_unit_dims(const BufferRegion& r) {
    std::vector<size_t> d;
    for (size_t i = 0; i < r.region.size(); ++i)
        if (as_const_int(r.region[i].extent) != 1) d.push_back(i);
    return d;
}

bool same_extent(const Expr& a, const Expr& b) {
    if (a == b) return true;
    auto x = as_const_int(a), y = as_const_int(b);
    return x && y && *x == *y;
}

// Indices of r for the loop vars (one per non-unit dim) and the in-bounds condition for a
// global buffer (null when statically in bounds).
std::pair<std::vector<Expr>, Expr> access(const BufferRegion& r, const std::vector<Var>& vars) {
    std::vector<Expr> idx;
    Expr cond;
    size_t k = 0;
    for (size_t i = 0; i < r.region.size(); ++i) {
        const Range& rg = r.region[i];
        Expr e = as_const_int(rg.extent) == 1 ? rg.min : make_binary(BinaryOp::Add, rg.min, vars[k++]);
        idx.push_back(e);
        if (r.buffer->scope != Scope::Global) continue;
        auto mn = as_const_int(rg.min), ext = as_const_int(rg.extent), dim = as_const_int(r.buffer->shape[i]);
        if (mn && ext && dim && *mn >= 0 && *mn + *ext <= *dim) continue;
        Expr c = make_binary(BinaryOp::LT, e, r.buffer->shape[i]);
        cond = cond ? make_binary(BinaryOp::And, cond, c) : c;
    }
    return {idx, cond};
}

Stmt parallel_nest(const std::vector<Var>& vars, const std::vector<Expr>& extents, Stmt body, Span span) {
    for (size_t i = vars.size(); i-- > 0;)
        body = std::make_shared<ForNode>(vars[i], int_imm(0), extents[i], ForKind::Parallel, body, span);
    return body;
}

std::vector<Var> loop_vars(const std::vector<Expr>& extents, Span span) {
    static const char* names[] = {"i", "j", "k", "l", "m", "n"};
    std::vector<Var> v;
    for (size_t i = 0; i < extents.size(); ++i)
        v.push_back(std::make_shared<VarNode>(std::string("tp_") + (i < 6 ? names[i] : "d" + std::to_string(i)),
                                              DataType::int32(), VarKind::Loop, span));
    return v;
}

class TileOpLowerer : public IRMutator {
public:
    DiagnosticEngine& diags;
    explicit TileOpLowerer(DiagnosticEngine& d) : diags(d) {}

protected:
    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        auto sd = non_unit_dims(n.src), dd = non_unit_dims(n.dst);
        bool ok = sd.size() == dd.size();
        for (size_t i = 0; ok && i < sd.size(); ++i) ok = same_extent(n.src.region[sd[i]].extent, n.dst.region[dd[i]].extent);
        if (!ok) {
            diags.report(DiagKind::NotYetLowered, n.span, {"T.copy between regions of different shapes", "CUDA"});
            return s;
        }
        std::vector<Expr> extents;
        for (size_t d : dd) extents.push_back(n.dst.region[d].extent);
        auto vars = loop_vars(extents, n.span);
        auto [sidx, scond] = access(n.src, vars);
        auto [didx, dcond] = access(n.dst, vars);
        Expr value = make_cast(n.dst.buffer->dtype, std::make_shared<BufferLoadNode>(n.src.buffer, sidx, n.span), n.span);
        if (scond) value = make_select(scond, value, make_cast(n.dst.buffer->dtype, int_imm(0)), n.span);
        Stmt body = std::make_shared<BufferStoreNode>(n.dst.buffer, didx, value, n.span);
        if (dcond) body = std::make_shared<IfThenElseNode>(dcond, body, nullptr, n.span);
        return parallel_nest(vars, extents, body, n.span);
    }
    Stmt visit_FillOp(const FillOpNode& n, const Stmt&) override {
        std::vector<Expr> extents;
        for (size_t d : non_unit_dims(n.dst)) extents.push_back(n.dst.region[d].extent);
        auto vars = loop_vars(extents, n.span);
        auto [didx, dcond] = access(n.dst, vars);
        Stmt body = std::make_shared<BufferStoreNode>(n.dst.buffer, didx, make_cast(n.dst.buffer->dtype, n.value, n.span), n.span);
        if (dcond) body = std::make_shared<IfThenElseNode>(dcond, body, nullptr, n.span);
        return parallel_nest(vars, extents, body, n.span);
    }
    Stmt visit_AtomicAddOp(const AtomicAddOpNode& n, const Stmt& s) override {
        if (auto* v = std::get_if<Expr>(&n.src)) {
            auto [idx, cond] = access(n.dst, {});
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
        auto vars = loop_vars(extents, n.span);
        auto [sidx, scond] = access(src, vars);
        auto [didx, dcond] = access(n.dst, vars);
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
    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        Stmt out = IRMutator::visit_For(n, s);
        if (n.for_kind != ForKind::Pipelined) return out;
        auto f = std::make_shared<ForNode>(*out->as<ForNode>());
        f->for_kind = ForKind::Serial;
        f->num_stages = 0;
        f->order.clear();
        f->stage.clear();
        f->group.clear();
        return f;
    }
};

}  // namespace

PrimFuncPtr lower_tile_ops(const PrimFuncPtr& func, DiagnosticEngine& diags) {
    int before = diags.error_count();
    TileOpLowerer l(diags);
    PrimFuncPtr out = mutate_func(func, l);
    return diags.error_count() == before ? out : nullptr;
}

}  // namespace tp::transform
