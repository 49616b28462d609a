// Tile ops in the interpreter: T.copy (safe global access: out-of-range reads give 0 and
// writes are dropped), T.fill, T.reduce_*, T.atomic_add, T.print and T.device_assert.
// T.gemm lives in gemm_op.cpp.
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "interp/race_check.h"
#include "interp/regions.h"

namespace tp::interp {

CStmtP compile_gemm(Program& p, const ir::GemmOpNode& g);  // gemm_op.cpp

namespace {

struct Copy : CStmt {
    CRegion src, dst;
    int mbar_slot = -1;  // T.tma_copy: the mbarrier its bytes complete on
    CExprP mbar_index;
    void exec(Frame& fr) const override {
        EvRegion s = eval_region(fr, src), d = eval_region(fr, dst);
        RegionMap m = map_regions(fr, span, "T.copy", src, s, dst, d);
        const BufView& sv = fr.bufs[static_cast<size_t>(src.slot)];
        BufView& dv = fr.bufs[static_cast<size_t>(dst.slot)];
        const ir::DataType dt = dst.buf->dtype;
        const bool check_src = fr.races && src.buf->scope == ir::Scope::Shared;
        const bool check_dst = fr.races && dst.buf->scope == ir::Scope::Shared;
        const int64_t mbar = check_dst && mbar_slot >= 0 ? mbar_index->i(fr) : 0;
        const int64_t phase = check_dst && mbar_slot >= 0 ? mbarrier_phases(fr, mbar_slot, mbar) : 0;
        for_each_pair(m, s, d, [&](const int64_t* si, const int64_t* di) {
            int64_t sf = flat_or_neg(sv, si);
            double x = 0;
            if (sf >= 0) x = sv.data[sf];
            else if (!sv.global) throw_oob(fr, span, "read", *src.buf, sv, si, sv.rank);
            if (check_src && sf >= 0) race_read(fr, src.slot, sf, &span);
            int64_t df = flat_or_neg(dv, di);
            if (df >= 0 && check_dst) {
                // A TMA load is written by the copy engine, not a thread: it is published by a
                // wait on its mbarrier, not by a barrier.
                if (mbar_slot >= 0)
                    race_async_write(fr, dst.slot, df, mbar_slot, mbar, phase, &span);
                else
                    race_write(fr, dst.slot, df, &span, dv.data[df], round_value(x, dt));
            }
            if (df >= 0) store_value(dv, df, x, dt);
            else if (!dv.global) throw_oob(fr, span, "write", *dst.buf, dv, di, dv.rank);
        });
    }
};

struct Fill : CStmt {
    CRegion dst;
    CExprP value;
    void exec(Frame& fr) const override {
        EvRegion d = eval_region(fr, dst);
        BufView& dv = fr.bufs[static_cast<size_t>(dst.slot)];
        double x = dst.buf->dtype.is_float() ? value->f(fr) : static_cast<double>(value->i(fr));
        RegionMap m;
        m.n = d.rank;
        for (int k = 0; k < d.rank; ++k) m.ext[k] = d.ext[k], m.src_dim[k] = k, m.dst_dim[k] = k;
        const bool check = fr.races && dst.buf->scope == ir::Scope::Shared;
        for_each_pair(m, d, d, [&](const int64_t*, const int64_t* di) {
            int64_t df = flat_or_neg(dv, di);
            if (df >= 0 && check) race_write(fr, dst.slot, df, &span, dv.data[df], round_value(x, dst.buf->dtype));
            if (df >= 0) store_value(dv, df, x, dst.buf->dtype);
            else if (!dv.global) throw_oob(fr, span, "write", *dst.buf, dv, di, dv.rank);
        });
    }
};

struct Reduce : CStmt {
    ir::ReduceKind kind;
    const ir::BufferNode *src, *dst;
    int src_slot, dst_slot, dim;
    bool clear;
    void exec(Frame& fr) const override {
        const BufView& s = fr.bufs[static_cast<size_t>(src_slot)];
        BufView& d = fr.bufs[static_cast<size_t>(dst_slot)];
        bool ok = dim >= 0 && dim < s.rank;
        int64_t outer = 1, red = ok ? s.shape[dim] : 0, inner = 1;
        if (ok) {
            for (int x = 0; x < dim; ++x) outer *= s.shape[x];
            for (int x = dim + 1; x < s.rank; ++x) inner *= s.shape[x];
            ok = d.size == outer * inner;
            // dst is src's shape with `dim` removed (or kept with extent 1).
            std::vector<int64_t> want;
            for (int x = 0; x < s.rank; ++x)
                if (x != dim) want.push_back(s.shape[x]);
            std::vector<int64_t> got(d.shape, d.shape + d.rank);
            std::vector<int64_t> keep(s.shape, s.shape + s.rank);
            keep[static_cast<size_t>(dim)] = 1;
            ok = ok && (got == want || got == keep || (want.empty() && d.size == 1));
        }
        if (!ok)
            throw_diag(fr, DiagKind::ShapeMismatch, span,
                       {"`T.reduce` over dim " + std::to_string(dim) + " of `" + src->name + "` with shape " +
                        shape_text(s) + " into `" + dst->name + "` with shape " + shape_text(d)});
        bool is_max = kind == ir::ReduceKind::Max || kind == ir::ReduceKind::AbsMax;
        bool is_min = kind == ir::ReduceKind::Min;
        bool is_abs = kind == ir::ReduceKind::AbsMax || kind == ir::ReduceKind::AbsSum;
        double init = is_max ? (is_abs ? 0.0 : -INFINITY) : is_min ? INFINITY : 0.0;
        const bool check_src = fr.races && src->scope == ir::Scope::Shared;
        const bool check_dst = fr.races && dst->scope == ir::Scope::Shared;
        for (int64_t o = 0; o < outer; ++o) {
            for (int64_t in = 0; in < inner; ++in) {
                double acc = init;
                const double* p = s.data + o * red * inner + in;
                for (int64_t r = 0; r < red; ++r) {
                    if (check_src) race_read(fr, src_slot, o * red * inner + in + r * inner, &span);
                    double v = p[r * inner];
                    if (is_abs) v = std::fabs(v);
                    acc = is_max ? std::fmax(acc, v) : is_min ? std::fmin(acc, v) : acc + v;
                }
                int64_t df = o * inner + in;
                if (!clear) {
                    double old = d.data[df];
                    acc = is_max ? std::fmax(old, acc) : is_min ? std::fmin(old, acc) : old + acc;
                }
                if (check_dst) race_write(fr, dst_slot, df, &span, d.data[df], round_value(acc, dst->dtype));
                store_value(d, df, acc, dst->dtype);
            }
        }
    }
};

void atomic_add_at(BufView& b, int64_t flat, double x, ir::DataType t) {
    std::atomic_ref<double> a(b.data[flat]);
    double old = a.load(std::memory_order_relaxed);
    while (!a.compare_exchange_weak(old, round_value(old + x, t), std::memory_order_relaxed)) {
    }
    if (b.written) std::atomic_ref<uint8_t>(b.written[flat]).store(1, std::memory_order_relaxed);
}

struct AtomicAdd : CStmt {
    CRegion dst;
    std::optional<CRegion> src;
    CExprP value;
    void exec(Frame& fr) const override {
        EvRegion d = eval_region(fr, dst);
        BufView& dv = fr.bufs[static_cast<size_t>(dst.slot)];
        const ir::DataType dt = dst.buf->dtype;
        if (!src) {
            int64_t di[kMaxRank];
            for (int x = 0; x < d.rank; ++x) di[x] = d.min[x];
            double x = value->f(fr);
            int64_t df = flat_or_neg(dv, di);
            if (df < 0) throw_oob(fr, span, "atomic add", *dst.buf, dv, di, dv.rank);
            atomic_add_at(dv, df, x, dt);
            return;
        }
        EvRegion s = eval_region(fr, *src);
        RegionMap m = map_regions(fr, span, "T.atomic_add", *src, s, dst, d);
        const BufView& sv = fr.bufs[static_cast<size_t>(src->slot)];
        const bool check_src = fr.races && src->buf->scope == ir::Scope::Shared;  // atomics on dst do not race
        for_each_pair(m, s, d, [&](const int64_t* si, const int64_t* di) {
            int64_t sf = flat_or_neg(sv, si);
            if (sf < 0) throw_oob(fr, span, "read", *src->buf, sv, si, sv.rank);
            if (check_src) race_read(fr, src->slot, sf, &span);
            int64_t df = flat_or_neg(dv, di);
            if (df >= 0) atomic_add_at(dv, df, sv.data[sf], dt);
            else if (!dv.global) throw_oob(fr, span, "atomic add", *dst.buf, dv, di, dv.rank);
        });
    }
};

}  // namespace

// Formats of TileLang's device-side debug printer (tl_templates/cuda/debug.h); the CUDA
// code generator prints the same lines with printf, and the LLVM JIT calls these.
std::string print_value(double v, ir::DataType t) {
    char buf[64];
    if (t.is_bool()) return v != 0 ? "true" : "false";
    if (t.is_float()) std::snprintf(buf, sizeof buf, "%f", v);
    else std::snprintf(buf, sizeof buf, "%" PRId64, static_cast<int64_t>(v));
    return buf;
}

std::string print_line_prefix(const int64_t* block, const std::string& msg) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "BlockIdx=(%" PRId64 ", %" PRId64 ", %" PRId64 "), ThreadIdx=(0, 0, 0)", block[0], block[1], block[2]);
    return "msg='" + msg + "' " + buf;
}

namespace {

std::string print_prefix(const Frame& fr, const std::string& msg) { return print_line_prefix(fr.block, msg); }

struct PrintExpr : CStmt {
    std::string msg;
    CExprP value;
    void exec(Frame& fr) const override {
        double v = value->dtype.is_float() ? value->f(fr) : static_cast<double>(value->i(fr));
        fr.prints += print_prefix(fr, msg) + ": dtype=" + value->dtype.print_name() + " value=" +
                     print_value(v, value->dtype) + "\n";
    }
};

struct PrintBuffer : CStmt {
    std::string msg;
    const ir::BufferNode* buf;
    int slot;
    void exec(Frame& fr) const override {
        const BufView& v = fr.bufs[static_cast<size_t>(slot)];
        std::string prefix = print_prefix(fr, msg) + ": buffer=" + buf->name + ", index=";
        std::string dt = ", dtype=" + buf->dtype.print_name() + " value=";
        for (int64_t i = 0; i < v.size; ++i) fr.prints += prefix + std::to_string(i) + dt + print_value(v.data[i], buf->dtype) + "\n";
    }
};

struct Assert : CStmt {
    std::string msg;
    CExprP cond;
    void exec(Frame& fr) const override {
        bool ok = cond->dtype.is_float() ? cond->f(fr) != 0 : cond->i(fr) != 0;
        if (!ok) throw_diag(fr, DiagKind::DeviceAssertFailed, span, {msg.empty() ? "assertion failed" : msg, block_text(fr)});
    }
};

}  // namespace

CStmtP compile_tile_op(Program& p, const ir::Stmt& s) {
    switch (s->kind) {
        case ir::NodeKind::CopyOp: {
            auto* c = s->as<ir::CopyOpNode>();
            auto n = std::make_unique<Copy>();
            n->src = compile_region(p, c->src);
            n->dst = compile_region(p, c->dst);
            if (auto* bar = c->barrier ? c->barrier->as<ir::BufferLoadNode>() : nullptr; bar && bar->indices.size() == 1) {
                n->mbar_slot = p.buffer_slot(bar->buffer);
                n->mbar_index = compile_expr(p, bar->indices[0]);
            }
            return n;
        }
        case ir::NodeKind::GemmOp: return compile_gemm(p, *s->as<ir::GemmOpNode>());
        case ir::NodeKind::FillOp: {
            auto* f = s->as<ir::FillOpNode>();
            auto n = std::make_unique<Fill>();
            n->dst = compile_region(p, f->dst);
            n->value = compile_expr(p, f->value);
            return n;
        }
        case ir::NodeKind::ReduceOp: {
            auto* r = s->as<ir::ReduceOpNode>();
            auto n = std::make_unique<Reduce>();
            n->kind = r->reduce_kind;
            n->src = r->src.get();
            n->dst = r->dst.get();
            n->src_slot = p.buffer_slot(r->src);
            n->dst_slot = p.buffer_slot(r->dst);
            n->dim = r->dim;
            n->clear = r->clear;
            return n;
        }
        case ir::NodeKind::AtomicAddOp: {
            auto* a = s->as<ir::AtomicAddOpNode>();
            auto n = std::make_unique<AtomicAdd>();
            n->dst = compile_region(p, a->dst);
            if (auto* r = std::get_if<ir::BufferRegion>(&a->src)) n->src = compile_region(p, *r);
            else n->value = compile_expr(p, std::get<ir::Expr>(a->src));
            return n;
        }
        case ir::NodeKind::PrintOp: {
            auto* pr = s->as<ir::PrintOpNode>();
            p.has_print = true;
            if (auto* b = std::get_if<ir::Buffer>(&pr->value)) {
                auto n = std::make_unique<PrintBuffer>();
                n->msg = pr->msg;
                n->buf = b->get();
                n->slot = p.buffer_slot(*b);
                return n;
            }
            auto n = std::make_unique<PrintExpr>();
            n->msg = pr->msg;
            n->value = compile_expr(p, std::get<ir::Expr>(pr->value));
            return n;
        }
        case ir::NodeKind::AssertOp: {
            auto* a = s->as<ir::AssertOpNode>();
            auto n = std::make_unique<Assert>();
            n->msg = a->msg;
            n->cond = compile_expr(p, a->cond);
            return n;
        }
        default: return nullptr;
    }
}

}  // namespace tp::interp
