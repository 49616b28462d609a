// T.atomic_add in CUDA (see lower_op.h): a scalar add is one atomic_add call (guarded when the
// element may lie outside a global tensor); a tile add a T.Parallel nest of them over regions
// that pair by their non-unit dims, as T.copy's do, rewritten by the fragment lowering when the
// source is a fragment.
#include <variant>

#include "codegen/cuda/ops/lower_op.h"
#include "transform/tile_lowering.h"

namespace tp::codegen::cuda {

using namespace ir;
using namespace transform;

namespace {

// T.atomic_add(dst, src) of two regions as a T.Parallel nest of element atomics (region_nest
// pairs the regions as for T.copy); null when the shapes do not pair up.
Stmt atomic_add_nest(const BufferRegion& src, const BufferRegion& dst, Span span) {
    return region_nest(src, dst, span, [&](const Expr& value, const Expr& scond, const std::vector<Expr>& didx, const Expr& dcond) {
        Expr target = std::make_shared<BufferLoadNode>(dst.buffer, didx, span);
        Stmt body = std::make_shared<EvaluateNode>(make_call("atomic_add", {target, value}, DataType::void_(), span), span);
        Expr cond = scond && dcond ? make_binary(BinaryOp::And, scond, dcond) : (scond ? scond : dcond);
        return cond ? std::make_shared<IfThenElseNode>(cond, body, nullptr, span) : body;
    });
}

}  // namespace

Stmt lower_atomic_add(const AtomicAddOpNode& n, const Stmt& s, ThreadLowering& cx) {
    if (auto* v = std::get_if<Expr>(&n.src)) {
        auto [idx, cond] = region_access(n.dst, {});
        Expr target = std::make_shared<BufferLoadNode>(n.dst.buffer, idx, n.span);
        Stmt body = std::make_shared<EvaluateNode>(
            make_call("atomic_add", {target, make_cast(n.dst.buffer->dtype, *v)}, DataType::void_(), n.span), n.span);
        return cond ? std::make_shared<IfThenElseNode>(cond, body, nullptr, n.span) : body;
    }
    Stmt nest = atomic_add_nest(std::get<BufferRegion>(n.src), n.dst, n.span);
    if (!nest) {
        cx.diags.report(DiagKind::NotYetLowered, n.span, {"T.atomic_add between regions of different shapes", "CUDA"});
        return s;
    }
    return nest;
}

// Left to lower-tile-ops, a fragment source would be indexed with tile coordinates into the
// per-thread registers the fragment lowering already distributed (`t[tx]` of `float t[1]`).
Stmt lower_atomic_add(const AtomicAddOpNode& n, const Stmt& s, FragmentLowering& cx) {
    const auto* src = std::get_if<BufferRegion>(&n.src);
    if (!src || src->buffer->scope != Scope::Fragment) return nullptr;
    Stmt nest = atomic_add_nest(*src, n.dst, n.span);
    if (!nest) {
        cx.fail("T.atomic_add between regions of different shapes", n.span);
        return s;
    }
    return cx.rewrite(nest);
}

}  // namespace tp::codegen::cuda
