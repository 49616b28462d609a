// T.gemm without a Tensor-Core path as multiply-add loops; see fma_gemm.h.
#include "transform/fma_gemm.h"

#include "ir/functor.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

bool is_fp8(DataType t) { return t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2; }

// Element (row, col) of a region's last two dims (the tile a T.gemm operand is).
Expr element(const BufferRegion& r, const Expr& row, const Expr& col, Span span) {
    std::vector<Expr> idx;
    for (const auto& rg : r.region) idx.push_back(rg.min);
    size_t n = idx.size();
    idx[n - 2] = make_binary(BinaryOp::Add, idx[n - 2], row, span);
    idx[n - 1] = make_binary(BinaryOp::Add, idx[n - 1], col, span);
    return std::make_shared<BufferLoadNode>(r.buffer, idx, span);
}

// Any thread reads shared and global operands; a fragment operand read at (i, k) in the loop
// over C is staged through shared memory by stage_fragments where its layout does not hold it.
bool readable_by_all(const BufferRegion& r) {
    return r.region.size() >= 2 && (r.buffer->scope == Scope::Shared || r.buffer->scope == Scope::Global || r.buffer->scope == Scope::Fragment);
}

class Expand : public IRMutator {
public:
    DiagnosticEngine* diags = nullptr;

protected:
    Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        if (gemm_has_tensor_core_types(n) || !readable_by_all(n.A) || !readable_by_all(n.B) || n.C.buffer->scope != Scope::Fragment ||
            n.C.region.size() < 2)
            return s;
        size_t ra = n.A.region.size(), rc = n.C.region.size();
        Expr m = n.C.region[rc - 2].extent, nn = n.C.region[rc - 1].extent;
        Expr k = n.A.region[n.transpose_A ? ra - 2 : ra - 1].extent;
        auto vars = nest_vars(2, n.span);
        Var kv = std::make_shared<VarNode>("tp_k", DataType::int32(), VarKind::Loop, n.span);
        const Expr &i = vars[0], &j = vars[1];
        DataType ct = n.C.buffer->dtype;
        Expr a = n.transpose_A ? element(n.A, kv, i, n.span) : element(n.A, i, kv, n.span);
        Expr b = n.transpose_B ? element(n.B, j, kv, n.span) : element(n.B, kv, j, n.span);
        Expr c = element(n.C, i, j, n.span);
        auto* cl = c->as<BufferLoadNode>();
        Expr sum = make_binary(BinaryOp::Add, c, make_binary(BinaryOp::Mul, make_cast(ct, a, n.span), make_cast(ct, b, n.span), n.span), n.span);
        Stmt update = std::make_shared<BufferStoreNode>(n.C.buffer, cl->indices, sum, n.span);
        report(n, ct);
        if (n.A.buffer->scope != Scope::Fragment && n.B.buffer->scope != Scope::Fragment) return k_outside(n, vars, {m, nn}, kv, k, update, ct);
        Stmt body = std::make_shared<ForNode>(kv, int_imm(0), k, ForKind::Serial, update, n.span);
        if (n.clear_accum)
            body = make_seq({std::make_shared<BufferStoreNode>(n.C.buffer, cl->indices, make_cast(ct, int_imm(0)), n.span), body}, n.span);
        return parallel_nest(vars, {m, nn}, body, n.span);
    }

private:
    // Operands every thread reads where they are (shared, global): the loop over K goes around
    // the T.Parallel nest, so each thread's unrolled loop over its C elements is the body of one
    // K step. Inside the nest, the unrolled elements each carried a K loop that NVRTC unrolled
    // too: kda's chunk_bwd_dqkwg (three 64x32x32 fp32 GEMMs on 32 threads) became 1 MB of PTX
    // and minutes of NVRTC. The same products, in the same order per element.
    Stmt k_outside(const GemmOpNode& n, const std::vector<Var>& vars, const std::vector<Expr>& extents, const Var& kv, const Expr& k,
                   const Stmt& update, DataType ct) {
        Stmt body = std::make_shared<ForNode>(kv, int_imm(0), k, ForKind::Serial, parallel_nest(vars, extents, update, n.span), n.span);
        if (!n.clear_accum) return body;
        auto zero_vars = nest_vars(2, n.span);
        Expr at = element(n.C, zero_vars[0], zero_vars[1], n.span);
        Stmt zero = std::make_shared<BufferStoreNode>(n.C.buffer, at->as<BufferLoadNode>()->indices, make_cast(ct, int_imm(0)), n.span);
        return make_seq({parallel_nest(zero_vars, extents, zero, n.span), body}, n.span);
    }

    void report(const GemmOpNode& n, DataType ct) {
        diags->report(
            DiagKind::FastPathNotTaken, n.span,
            {"Tensor Cores",
             "no mma.sync or wgmma path here takes T.gemm on " + n.A.buffer->dtype.name() + " x " + n.B.buffer->dtype.name() + " -> " + ct.name(),
             "this T.gemm runs as multiply-add loops"});
    }
};

}  // namespace

bool gemm_has_tensor_core_types(const GemmOpNode& g) {
    DataType a = g.A.buffer->dtype, b = g.B.buffer->dtype;
    if (g.C.buffer->dtype != DataType::float32()) return false;
    return ((a == DataType::float16() || a == DataType::bfloat16()) && b == a) || (is_fp8(a) && is_fp8(b));
}

PrimFuncPtr fma_gemm(const PrimFuncPtr& func, DiagnosticEngine& diags) {
    Expand e;
    e.diags = &diags;
    return mutate_func(func, e);
}

}  // namespace tp::transform
