// T.atomic_add in CUDA (see lower_op.h): a scalar add is one atomic_add call (guarded when the
// element may lie outside a global tensor); a tile add a T.Parallel nest of them over regions
// that pair by their non-unit dims, as T.copy's do.
#include <variant>

#include "codegen/cuda/ops/lower_op.h"
#include "transform/tile_lowering.h"

namespace tp::codegen::cuda {

using namespace ir;
using namespace transform;

Stmt lower_atomic_add(const AtomicAddOpNode& n, const Stmt& s, ThreadLowering& cx) {
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
        cx.diags.report(DiagKind::NotYetLowered, n.span, {"T.atomic_add between regions of different shapes", "CUDA"});
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

}  // namespace tp::codegen::cuda
