// T.gemm in the interpreter: C[M, N] (+)= A[M, K] @ B[K, N] on the last two dims of each
// region, with either operand transposed. Operands are gathered into contiguous rows once
// so the inner product is a tight loop; products are summed in double and the result is
// rounded to C's dtype (the fp32 accumulator of the tensor-core path).
#include <vector>

#include "interp/race_check.h"
#include "interp/regions.h"

namespace tp::interp {

namespace {

struct Gemm : CStmt {
    CRegion a, b, c;
    bool trans_a = false, trans_b = false, clear = false;

    // Checks the region lies inside its buffer and has extent 1 in all but the last two dims;
    // returns the flat offset of its first element and the row stride.
    void locate(Frame& fr, const CRegion& r, const EvRegion& e, int64_t& base, int64_t& ld, int64_t& rows,
                int64_t& cols) const {
        const BufView& v = fr.bufs[static_cast<size_t>(r.slot)];
        if (e.rank < 2 || v.rank != e.rank)
            throw_diag(fr, DiagKind::ShapeMismatch, span,
                       {"`T.gemm` operand `" + r.buf->name + "` must be a 2-D tile, got shape " + shape_text(v)});
        for (int d = 0; d + 2 < e.rank; ++d)
            if (e.ext[d] != 1)
                throw_diag(fr, DiagKind::ShapeMismatch, span,
                           {"`T.gemm` operand `" + r.buf->name + "` region has extent " + std::to_string(e.ext[d]) +
                            " in a leading dim; only the last two dims may be larger than 1"});
        int64_t lo[kMaxRank], hi[kMaxRank];
        for (int d = 0; d < e.rank; ++d) lo[d] = e.min[d], hi[d] = e.min[d] + e.ext[d] - 1;
        for (int d = 0; d < e.rank; ++d) {
            if (e.ext[d] > 0 && (lo[d] < 0 || hi[d] >= v.shape[d]))
                throw_oob(fr, span, "access", *r.buf, v, lo[d] < 0 ? lo : hi, e.rank);
        }
        base = 0;
        for (int d = 0; d < e.rank; ++d) base = base * v.shape[d] + e.min[d];
        ld = v.shape[e.rank - 1];
        rows = e.ext[e.rank - 2];
        cols = e.ext[e.rank - 1];
    }

    void exec(Frame& fr) const override {
        EvRegion ea = eval_region(fr, a), eb = eval_region(fr, b), ec = eval_region(fr, c);
        int64_t abase, ald, ar, ac, bbase, bld, br, bc, cbase, cld, cr, cc;
        locate(fr, a, ea, abase, ald, ar, ac);
        locate(fr, b, eb, bbase, bld, br, bc);
        locate(fr, c, ec, cbase, cld, cr, cc);
        int64_t M = trans_a ? ac : ar, K = trans_a ? ar : ac;
        int64_t KB = trans_b ? bc : br, N = trans_b ? br : bc;
        if (K != KB || M != cr || N != cc)
            throw_diag(fr, DiagKind::ShapeMismatch, span,
                       {"`T.gemm` with A `" + a.buf->name + "` " + std::to_string(M) + "x" + std::to_string(K) + ", B `" +
                        b.buf->name + "` " + std::to_string(KB) + "x" + std::to_string(N) + " and C `" + c.buf->name +
                        "` " + std::to_string(cr) + "x" + std::to_string(cc) + "; the inner dims and C's shape must agree"});
        if (fr.races) {
            // A and B are read by the block's threads (ldmatrix / wgmma descriptors); C is
            // normally a fragment, written element by element below when it is shared.
            for (const auto* r : {&a, &b})
                if (r->buf->scope == ir::Scope::Shared) {
                    const int64_t base = r == &a ? abase : bbase, ld = r == &a ? ald : bld;
                    const int64_t rows = r == &a ? ar : br, cols = r == &a ? ac : bc;
                    for (int64_t i = 0; i < rows; ++i)
                        for (int64_t k = 0; k < cols; ++k) race_read(fr, r->slot, base + i * ld + k, &span);
                }
        }
        const double* A = fr.bufs[static_cast<size_t>(a.slot)].data + abase;
        const double* B = fr.bufs[static_cast<size_t>(b.slot)].data + bbase;
        BufView& cv = fr.bufs[static_cast<size_t>(c.slot)];
        // Rows of A (M x K) and columns of B as rows (N x K), contiguous.
        thread_local std::vector<double> at, bt;
        at.resize(static_cast<size_t>(M * K));
        bt.resize(static_cast<size_t>(N * K));
        for (int64_t i = 0; i < M; ++i)
            for (int64_t k = 0; k < K; ++k) at[static_cast<size_t>(i * K + k)] = trans_a ? A[k * ald + i] : A[i * ald + k];
        for (int64_t j = 0; j < N; ++j)
            for (int64_t k = 0; k < K; ++k) bt[static_cast<size_t>(j * K + k)] = trans_b ? B[j * bld + k] : B[k * bld + j];
        const ir::DataType ct = c.buf->dtype;
        for (int64_t i = 0; i < M; ++i) {
            const double* ai = at.data() + i * K;
            for (int64_t j = 0; j < N; ++j) {
                const double* bj = bt.data() + j * K;
                double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                int64_t k = 0;
                for (; k + 4 <= K; k += 4) {
                    s0 += ai[k] * bj[k];
                    s1 += ai[k + 1] * bj[k + 1];
                    s2 += ai[k + 2] * bj[k + 2];
                    s3 += ai[k + 3] * bj[k + 3];
                }
                for (; k < K; ++k) s0 += ai[k] * bj[k];
                int64_t cf = cbase + i * cld + j;
                double acc = (s0 + s1) + (s2 + s3);
                if (fr.races && c.buf->scope == ir::Scope::Shared)
                    race_write(fr, c.slot, cf, &span, cv.data[cf], round_value(clear ? acc : cv.data[cf] + acc, ct));
                store_value(cv, cf, clear ? acc : cv.data[cf] + acc, ct);
            }
        }
    }
};

}  // namespace

CStmtP compile_gemm(Program& p, const ir::GemmOpNode& g) {
    auto n = std::make_unique<Gemm>();
    n->a = compile_region(p, g.A);
    n->b = compile_region(p, g.B);
    n->c = compile_region(p, g.C);
    n->trans_a = g.transpose_A;
    n->trans_b = g.transpose_B;
    n->clear = g.clear_accum;
    return n;
}

}  // namespace tp::interp
