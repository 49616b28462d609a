// coarsen_k_pairs (see warp_specialize_internal.h): lets a block_K = 32 main loop take the
// sm_90a warp-specialized path, whose ring slots hold 64-wide K tiles (one 128-byte swizzle row
// of fp16/bf16). Two consecutive iterations k = 2j, 2j + 1 copy the two halves of one 64-wide
// tile and then multiply them in order, so iteration j of a loop over 64-wide tiles computes
// the same sums in the same k16 order. The rewrite is taken only when it reads nothing the
// original did not: an even trip count, or an odd one whose extra half tile lies wholly past
// the end of K (the ring's TMA loads fill it with zeros, as the copy would).
#include <map>

#include "ir/functor.h"
#include "transform/tile_lowering.h"
#include "transform/warp_specialize_internal.h"

namespace tp::transform::ws_gemm {

namespace {

// `k * 32` or `32 * k`: the K origin of a copy, so pairs start 64-aligned.
bool is_k_times(const Expr& e, const VarNode* k, int64_t step) {
    auto* b = e ? e->as<BinaryNode>() : nullptr;
    if (!b || b->op != BinaryOp::Mul) return false;
    auto is_k = [&](const Expr& x) { return x.get() == k; };
    auto is_step = [&](const Expr& x) { return as_const_int(x) == step; };
    return (is_k(b->a) && is_step(b->b)) || (is_step(b->a) && is_k(b->b));
}

struct UsesVar : IRVisitor {
    const VarNode* v = nullptr;
    bool found = false;
    void visit_Var(const VarNode& n, const Expr&) override { found |= &n == v; }
};
bool uses(const Expr& e, const VarNode* v) {
    UsesVar u;
    u.v = v;
    u.visit(e);
    return u.found;
}

BufferRegion whole(const Buffer& b) {
    BufferRegion r{b, {}};
    for (const auto& d : b->shape) r.region.push_back({int_imm(0), d});
    return r;
}

// The copy's global region with its K dim (`kdim`) doubled and re-based on the new loop var;
// null when k appears anywhere but as `k * 32` in that dim.
std::optional<BufferRegion> widen(const BufferRegion& src, size_t kdim, const VarNode* k, const Expr& origin) {
    if (src.region.size() != 2) return std::nullopt;
    BufferRegion out = src;
    for (size_t d = 0; d < 2; ++d) {
        const Range& r = src.region[d];
        if (d == kdim) {
            if (!is_k_times(r.min, k, 32) || as_const_int(r.extent) != 32) return std::nullopt;
            out.region[d] = {origin, int_imm(64)};
        } else if (uses(r.min, k) || uses(r.extent, k)) {
            return std::nullopt;
        }
    }
    return out;
}

class Rebind : public IRMutator {
public:
    std::map<const BufferNode*, Buffer> map;
    Buffer mutate_buffer(const Buffer& b) override {
        auto it = map.find(b.get());
        return it == map.end() ? b : it->second;
    }
};

}  // namespace

std::optional<CoarsenedK> coarsen_k_pairs(const ForNode& loop, const GemmOpNode& g, const CopyOpNode& ca, const CopyOpNode& cb) {
    auto trip = as_const_int(loop.extent);
    if (!trip || *trip < 2 || as_const_int(loop.min) != 0) return std::nullopt;
    const VarNode* k = loop.loop_var.get();
    // A [M][K] tile: K is dim 1. B [K][N] (or [N][K] transposed): K is dim 0 (1).
    const size_t a_k = 1, b_k = g.transpose_B ? 1 : 0;
    if (*trip % 2 != 0) {
        // The extra half tile [trip * 32, trip * 32 + 32) must lie past K in both operands.
        auto ka = as_const_int(ca.src.buffer->shape[a_k]), kb = as_const_int(cb.src.buffer->shape[b_k]);
        if (!ka || !kb || *ka > *trip * 32 || *kb > *trip * 32) return std::nullopt;
    }
    Var k2 = std::make_shared<VarNode>(loop.loop_var->name, loop.loop_var->dtype, loop.loop_var->var_kind, loop.loop_var->span);
    Expr origin = make_binary(BinaryOp::Mul, k2, int_imm(64), loop.span);
    auto sa = widen(ca.src, a_k, k, origin), sb = widen(cb.src, b_k, k, origin);
    if (!sa || !sb) return std::nullopt;

    CoarsenedK out;
    auto wider = [&](const Buffer& b, size_t kdim) {
        std::vector<Expr> shape = b->shape;
        shape[kdim] = int_imm(64);
        auto nb = std::make_shared<BufferNode>(b->name, b->dtype, shape, b->scope, b->span);
        nb->layout = b->layout;
        out.rebind[b.get()] = nb;
        return Buffer(nb);
    };
    Buffer A = wider(ca.dst.buffer, 1), B = wider(cb.dst.buffer, g.transpose_B ? 1 : 0);
    auto copy_a = std::make_shared<CopyOpNode>(*sa, whole(A), ca.span);
    auto copy_b = std::make_shared<CopyOpNode>(*sb, whole(B), cb.span);
    copy_a->disable_tma = ca.disable_tma;
    copy_b->disable_tma = cb.disable_tma;
    auto gemm = std::make_shared<GemmOpNode>(g);
    gemm->A = whole(A);
    gemm->B = whole(B);
    // Keep the statement order of the original body (the two copies may come either way).
    std::vector<Stmt> body;
    flatten_seq(loop.body, body);
    for (auto& s : body) {
        if (s.get() == &ca) s = copy_a;
        else if (s.get() == &cb) s = copy_b;
        else if (s.get() == &g) s = gemm;
    }
    auto l = std::make_shared<ForNode>(k2, int_imm(0), int_imm((*trip + 1) / 2), loop.for_kind, make_seq(body, loop.span), loop.span);
    l->num_stages = loop.num_stages;
    out.loop = l;
    out.gemm = gemm.get();
    return out;
}

Stmt rebind_buffers(const Stmt& s, const std::map<const BufferNode*, Buffer>& map) {
    Rebind r;
    r.map = map;
    return r.mutate(s);
}

}  // namespace tp::transform::ws_gemm
