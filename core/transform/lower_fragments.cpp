// layout_inference's rewrite (see layout_inference.h): fragments become per-thread register
// arrays, T.Parallel loops over them per-thread unrolled loops, and the tile ops that touch
// them per-thread code or calls into the Tensor-Core templates.
#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "ir/functor.h"
#include "transform/layout_inference.h"
#include "transform/striped_copy.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

struct FragAccessScan : IRVisitor {
    bool found = false;
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        found |= n.buffer->scope == Scope::Fragment;
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        found |= n.buffer->scope == Scope::Fragment;
        IRVisitor::visit_BufferStore(n, s);
    }
};

// Indices of a fragment access without those on unit dims (always 0), so x[0, j] of a
// (1, N) fragment matches a 1-D loop over j.
std::vector<Expr> squeeze(const Buffer& b, const std::vector<Expr>& idx) {
    if (idx.size() != b->shape.size()) return idx;
    std::vector<Expr> out;
    for (size_t k = 0; k < idx.size(); ++k)
        if (!(as_const_int(b->shape[k]) == 1 && as_const_int(idx[k]) == 0)) out.push_back(idx[k]);
    return out;
}

const char* reduce_op_name(ReduceKind k) {
    switch (k) {
        case ReduceKind::Max: return "tp::ReduceOp::Max";
        case ReduceKind::Sum: return "tp::ReduceOp::Sum";
        case ReduceKind::Min: return "tp::ReduceOp::Min";
        case ReduceKind::AbsSum: return "tp::ReduceOp::AbsSum";
        case ReduceKind::AbsMax: return "tp::ReduceOp::AbsMax";
    }
    return "tp::ReduceOp::Sum";
}

bool mma_dtype(DataType t) { return t == DataType::float16() || t == DataType::bfloat16(); }

// Element types tp_reduce*.cuh reduce from and into: fp32/fp16/bf16 (fp32 partials) and
// integers up to 32 bits (int / unsigned partials, tp::ReduceAccum).
bool reduce_dtype(DataType t) {
    if (t.lanes != 1) return false;
    return t == DataType::float32() || mma_dtype(t) || (t.is_int() && t.bits <= 32);
}

class FragLowerer : public IRMutator {
public:
    DiagnosticEngine& diags;
    std::map<const BufferNode*, FragLayout> layouts;
    std::map<const BufferNode*, Buffer> replaced;  // fragment -> local array, gemm tile -> swizzled
    Expr tid;
    int64_t threads = 0;
    bool one_dim_block = true;
    Buffer scratch;

    struct Ctx {
        FragLayout drv;
        std::vector<const VarNode*> vars;
        std::vector<int64_t> ext;  // the loop extents, one per var
        Expr local;  // accumulator index, row/column slot or stripe round
    };
    std::optional<Ctx> ctx;

    explicit FragLowerer(DiagnosticEngine& d) : diags(d) {}

    Buffer mutate_buffer(const Buffer& b) override {
        auto it = replaced.find(b.get());
        return it == replaced.end() ? b : it->second;
    }
    const FragLayout* layout_of(const Buffer& b) {
        auto it = layouts.find(b.get());
        return it == layouts.end() ? nullptr : &it->second;
    }
    Buffer local_of(const Buffer& b) { return mutate_buffer(b); }
    void fail(const std::string& what, Span span) { diags.report(DiagKind::NotYetLowered, span, {what, "CUDA"}); }

    // Local index of fragment access b[idx] inside the current per-thread loop.
    Expr frag_index(const Buffer& b, const std::vector<Expr>& full_idx, Span span) {
        const FragLayout* l = layout_of(b);
        const std::vector<Expr>& idx = (l && l->kind == FragLayout::Replicated) ? full_idx : squeeze(b, full_idx);
        if (l && l->kind == FragLayout::Replicated) {
            // Every thread holds the whole fragment: the row-major offset, from any loop.
            Expr off = int_imm(0);
            for (size_t k = 0; k < idx.size(); ++k) {
                // A unit dim is index 0 (constant register indices keep it out of local memory).
                Expr i = as_const_int(b->shape[k]) == 1 ? int_imm(0) : mutate(idx[k]);
                off = make_binary(BinaryOp::Add, make_binary(BinaryOp::Mul, off, b->shape[k]), i);
            }
            return off;
        }
        auto var_is = [&](size_t k, size_t v) { return k < idx.size() && v < ctx->vars.size() && idx[k].get() == ctx->vars[v]; };
        if (ctx && l) {
            const FragLayout& d = ctx->drv;
            if (d.kind == FragLayout::Acc) {
                if (l->kind == FragLayout::Acc && *l == d && idx.size() == 2 && var_is(0, 0) && var_is(1, 1)) return ctx->local;
                if (l->kind == FragLayout::Row && l->same_rows(d) && idx.size() == 1 && var_is(0, 0)) return d.row_slot_of(ctx->local);
                if (l->kind == FragLayout::Col && l->same_cols(d) && idx.size() == 1 && var_is(0, 1)) return d.col_slot_of(ctx->local);
            } else if (d.kind == FragLayout::Row || d.kind == FragLayout::Col) {
                bool same = d.kind == FragLayout::Row ? l->same_rows(d) : l->same_cols(d);
                if (l->kind == d.kind && same && idx.size() == 1 && var_is(0, 0)) return ctx->local;
            } else if (d.kind == FragLayout::Striped && l->kind == FragLayout::Striped && l->elems == d.elems && l->vec == d.vec) {
                // The loop's vars in order; a var of extent 1 is always 0 and may be left out
                // (dgamma[j] inside T.Parallel(1, D) over x_hat[i, j]: the same element order).
                std::vector<size_t> want;
                for (size_t v = 0; v < ctx->vars.size(); ++v)
                    if (idx.size() == ctx->vars.size() || ctx->ext[v] != 1) want.push_back(v);
                bool all = idx.size() == want.size();
                for (size_t k = 0; all && k < idx.size(); ++k) all &= var_is(k, want[k]);
                if (all) return ctx->local;
            }
        }
        fail("an access to fragment `" + b->name + "` that does not follow its layout (" + (l ? l->describe() : "unknown") +
                 ")",
             span);
        return int_imm(0);
    }

    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        if (n.buffer->scope != Scope::Fragment) return IRMutator::visit_BufferLoad(n, e);
        return std::make_shared<BufferLoadNode>(local_of(n.buffer), std::vector<Expr>{frag_index(n.buffer, n.indices, n.span)}, n.span);
    }
    Stmt visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        if (n.buffer->scope != Scope::Fragment) return IRMutator::visit_BufferStore(n, s);
        Expr v = mutate(n.value);
        return std::make_shared<BufferStoreNode>(local_of(n.buffer), std::vector<Expr>{frag_index(n.buffer, n.indices, n.span)}, v, n.span);
    }

    // for i in unroll(n): body(i)
    Stmt local_loop(int64_t n, const std::string& name, const std::function<Stmt(const Expr&)>& body, Span span) {
        Var v = std::make_shared<VarNode>(name, DataType::int32(), VarKind::Loop, span);
        return std::make_shared<ForNode>(v, int_imm(0), int_imm(n), n <= 256 ? ForKind::Unrolled : ForKind::Serial, body(v), span);
    }

    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        if (n.for_kind != ForKind::Parallel || ctx) return IRMutator::visit_For(n, s);
        FragAccessScan scan;
        scan.visit(s);
        if (!scan.found) return IRMutator::visit_For(n, s);
        std::vector<const ForNode*> nest = {&n};
        while (auto* inner = nest.back()->body->as<ForNode>()) {
            if (inner->for_kind != ForKind::Parallel) break;
            nest.push_back(inner);
        }
        std::vector<int64_t> ext;
        for (auto* f : nest) {
            auto e = as_const_int(f->extent);
            if (!e || as_const_int(f->min) != 0) {
                fail("a T.Parallel loop over fragments with a non-constant extent", n.span);
                return s;
            }
            ext.push_back(*e);
        }
        // The driver: the first fragment indexed with all the loop variables in order.
        Ctx c;
        for (auto* f : nest) c.vars.push_back(f->loop_var.get());
        c.ext = ext;
        struct Finder : IRVisitor {
            FragLowerer* self;
            const std::vector<const VarNode*>* vars;
            const std::vector<int64_t>* ext;
            std::optional<FragLayout> found;
            void check(const Buffer& b, const std::vector<Expr>& full_idx) {
                const FragLayout* l = self->layout_of(b);
                std::vector<Expr> idx = squeeze(b, full_idx);
                if (found || !l || idx.size() != vars->size()) return;
                for (size_t k = 0; k < idx.size(); ++k)
                    if (idx[k].get() != (*vars)[k]) return;
                bool fits = (l->kind == FragLayout::Acc && ext->size() == 2 && (*ext)[0] == l->bm && (*ext)[1] == l->bn) ||
                            (l->kind == FragLayout::Row && ext->size() == 1 && (*ext)[0] == l->bm) ||
                            (l->kind == FragLayout::Col && ext->size() == 1 && (*ext)[0] == l->bn) ||
                            l->kind == FragLayout::Striped;
                if (fits) found = *l;
            }
            void visit_BufferLoad(const BufferLoadNode& x, const Expr& e) override { check(x.buffer, x.indices); IRVisitor::visit_BufferLoad(x, e); }
            void visit_BufferStore(const BufferStoreNode& x, const Stmt& st) override { check(x.buffer, x.indices); IRVisitor::visit_BufferStore(x, st); }
        } finder;
        finder.self = this;
        finder.vars = &c.vars;
        finder.ext = &ext;
        finder.visit(nest.back()->body);
        if (!finder.found) {
            // Only replicated fragments: every thread runs the whole nest on its own copy.
            struct OnlyReplicated : IRVisitor {
                FragLowerer* self;
                bool ok = true;
                void check(const Buffer& b) {
                    if (b->scope != Scope::Fragment) return;
                    const FragLayout* l = self->layout_of(b);
                    ok &= l && l->kind == FragLayout::Replicated;
                }
                void visit_BufferLoad(const BufferLoadNode& x, const Expr& e) override { check(x.buffer); IRVisitor::visit_BufferLoad(x, e); }
                void visit_BufferStore(const BufferStoreNode& x, const Stmt& st) override { check(x.buffer); IRVisitor::visit_BufferStore(x, st); }
            } only;
            only.self = this;
            only.visit(s);
            if (only.ok) {
                Stmt body = mutate(nest.back()->body);
                for (size_t k = nest.size(); k-- > 0;) {
                    auto f = std::make_shared<ForNode>(*nest[k]);
                    f->for_kind = ext[k] <= 64 ? ForKind::Unrolled : ForKind::Serial;
                    f->body = body;
                    body = f;
                }
                return body;
            }
            fail("a T.Parallel loop whose fragments are not indexed by its loop variables over their whole shape", n.span);
            return s;
        }
        c.drv = *finder.found;
        Span span = n.span;
        const FragLayout& d = c.drv;
        auto make = [&](const Expr& local) -> Stmt {
            ctx = c;
            ctx->local = local;
            Stmt body = mutate(nest.back()->body);
            ctx.reset();
            if (d.kind == FragLayout::Acc) {
                body = std::make_shared<LetStmtNode>(nest[1]->loop_var, d.acc_col(tid, local), body, span);
                return std::make_shared<LetStmtNode>(nest[0]->loop_var, d.acc_row(tid, local), body, span);
            }
            if (d.kind == FragLayout::Row) return std::make_shared<LetStmtNode>(nest[0]->loop_var, d.slot_row(tid, local), body, span);
            if (d.kind == FragLayout::Col) return std::make_shared<LetStmtNode>(nest[0]->loop_var, d.slot_col(tid, local), body, span);
            // Striped: element e = d.striped_elem(tid, slot) (round * T + tid for V = 1),
            // unflattened row-major into the loop vars.
            Var e = std::make_shared<VarNode>("tp_e", DataType::int32(), VarKind::Plain, span);
            int64_t stride = 1;
            for (size_t k = nest.size(); k-- > 0;) {
                Expr v = make_binary(BinaryOp::FloorDiv, e, int_imm(stride));
                if (k > 0) v = make_binary(BinaryOp::FloorMod, v, int_imm(ext[k]));
                body = std::make_shared<LetStmtNode>(nest[k]->loop_var, v, body, span);
                stride *= ext[k];
            }
            if (d.elems % d.threads != 0) body = std::make_shared<IfThenElseNode>(make_binary(BinaryOp::LT, e, int_imm(d.elems)), body, nullptr, span);
            return std::make_shared<LetStmtNode>(e, d.striped_elem(tid, local), body, span);
        };
        const char* name = d.kind == FragLayout::Acc ? "tp_f" : d.kind == FragLayout::Striped ? "tp_r" : "tp_s";
        return local_loop(d.local_size(), name, make, span);
    }

    Stmt visit_FillOp(const FillOpNode& n, const Stmt& s) override {
        if (n.dst.buffer->scope != Scope::Fragment) return IRMutator::visit_FillOp(n, s);
        const FragLayout* l = layout_of(n.dst.buffer);
        if (!l || !whole_buffer(n.dst)) {
            fail("T.fill of part of a fragment", n.span);
            return s;
        }
        Buffer b = local_of(n.dst.buffer);
        Expr v = make_cast(b->dtype, mutate(n.value), n.span);
        return local_loop(l->local_size(), "tp_f", [&](const Expr& i) -> Stmt {
            return std::make_shared<BufferStoreNode>(b, std::vector<Expr>{i}, v, n.span);
        }, n.span);
    }

    Stmt visit_CopyOp(const CopyOpNode& n, const Stmt& s) override;
    // T.print of a fragment: staged through a shared tile of the same shape, which the code
    // generator prints row-major from one thread (the same text the CPU interpreter gives).
    std::vector<Buffer> print_tiles;
    Stmt visit_PrintOp(const PrintOpNode& n, const Stmt& s) override {
        auto* b = std::get_if<Buffer>(&n.value);
        if (!b || (*b)->scope != Scope::Fragment) return IRMutator::visit_PrintOp(n, s);
        auto tile = std::make_shared<BufferNode>((*b)->name, (*b)->dtype, (*b)->shape, Scope::Shared, (*b)->span);
        print_tiles.push_back(tile);
        auto whole = [](const Buffer& x) {
            BufferRegion r{x, {}};
            for (const auto& d : x->shape) r.region.push_back({int_imm(0), d});
            return r;
        };
        CopyOpNode cp(whole(*b), whole(tile), n.span);
        Stmt copy = visit_CopyOp(cp, nullptr);
        if (!copy) return s;
        return make_seq({copy, std::make_shared<PrintOpNode>(Buffer(tile), n.msg, n.span)}, n.span);
    }
    Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override;
    Stmt visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override;
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override;
};

Stmt FragLowerer::visit_CopyOp(const CopyOpNode& n, const Stmt& s) {
    bool sf = n.src.buffer->scope == Scope::Fragment, df = n.dst.buffer->scope == Scope::Fragment;
    if (!sf && !df) return IRMutator::visit_CopyOp(n, s);
    const FragLayout* sl = sf ? layout_of(n.src.buffer) : nullptr;
    const FragLayout* dl = df ? layout_of(n.dst.buffer) : nullptr;
    if (sf && df && sl && dl && *sl == *dl && whole_buffer(n.src) && whole_buffer(n.dst)) {
        Buffer sb = local_of(n.src.buffer), db = local_of(n.dst.buffer);
        return local_loop(sl->local_size(), "tp_f", [&](const Expr& i) -> Stmt {
            Expr v = make_cast(db->dtype, std::make_shared<BufferLoadNode>(sb, std::vector<Expr>{i}, n.span), n.span);
            return std::make_shared<BufferStoreNode>(db, std::vector<Expr>{i}, v, n.span);
        }, n.span);
    }
    // Accumulator <-> memory through the templates (paired stores, swizzle-aware smem).
    const FragLayout* acc = sf && !df ? sl : (df && !sf ? dl : nullptr);
    const BufferRegion& frag = sf ? n.src : n.dst;
    const BufferRegion& mem = sf ? n.dst : n.src;
    if (acc && acc->kind == FragLayout::Acc && whole_buffer(frag) && one_dim_block) {
        auto t = tile_2d(mem);
        if (t && t->rows == acc->bm && t->cols == acc->bn) {
            Buffer fb = local_of(frag.buffer), mb = mutate_buffer(mem.buffer);
            Expr faddr = buffer_addr(fb, {int_imm(0)}, df, n.span);
            Expr maddr = buffer_addr(mb, t->origin, sf, n.span);
            if (mem.buffer->scope == Scope::Global) {
                std::string fn = sf ? "tp::frag_store_global<" : "tp::frag_load_global<";
                fn += acc->acc_type() + (sf && tile_in_bounds(mem, *t, 2) ? ", true>" : ">");
                return device_call(fn, {faddr, maddr, t->ld, t->rows_valid, t->cols_valid, tid}, n.span);
            }
            if (mem.buffer->scope == Scope::Shared && whole_buffer(mem) && mem.buffer->shape.size() == 2) {
                std::string fn = sf ? "tp::frag_store_smem<" : "tp::frag_load_smem<";
                fn += acc->acc_type() + ", " + std::to_string(t->cols) + ", " + cuda_bool(mb->layout == "swizzle") + ">";
                return device_call(fn, {faddr, maddr, tid}, n.span);
            }
        }
    }
    // Striped fragment <-> global memory in runs of V: one vector access per run.
    const FragLayout* striped = sf && !df ? sl : (df && !sf ? dl : nullptr);
    if (striped && striped->kind == FragLayout::Striped && striped->vec > 1 && one_dim_block) {
        if (Stmt v = striped_global_copy(frag, mem, *striped, local_of(frag.buffer), mutate_buffer(mem.buffer), df, tid, n.span)) return v;
    }
    Stmt nest = copy_nest(n.src, n.dst, n.span);
    if (!nest) {
        fail("T.copy between regions of different shapes", n.span);
        return s;
    }
    return mutate(nest);
}

Stmt FragLowerer::visit_GemmOp(const GemmOpNode& n, const Stmt& s) {
    const FragLayout* cl = n.C.buffer->scope == Scope::Fragment ? layout_of(n.C.buffer) : nullptr;
    if (!cl || cl->kind != FragLayout::Acc) {
        fail("T.gemm into a " + std::string(scope_name(n.C.buffer->scope)) + " buffer", n.span);
        return s;
    }
    DataType t = n.A.buffer->dtype;
    if (!mma_dtype(t) || n.B.buffer->dtype != t || n.C.buffer->dtype != DataType::float32()) {
        fail("T.gemm on " + t.name() + " x " + n.B.buffer->dtype.name() + " -> " + n.C.buffer->dtype.name(), n.span);
        return s;
    }
    if (!one_dim_block) {
        fail("T.gemm in a kernel with a multi-dimensional thread block", n.span);
        return s;
    }
    if (n.B.buffer->scope != Scope::Shared || !whole_buffer(n.A) || !whole_buffer(n.B) || !whole_buffer(n.C) ||
        n.A.buffer->shape.size() != 2 || n.B.buffer->shape.size() != 2) {
        fail("T.gemm on parts of buffers or with B outside shared memory", n.span);
        return s;
    }
    int64_t bk = *as_const_int(n.A.buffer->shape[n.transpose_A ? 0 : 1]);
    int64_t bk_b = *as_const_int(n.B.buffer->shape[n.transpose_B ? 1 : 0]);
    if (bk != bk_b || bk % 16 != 0) {
        fail("T.gemm with K = " + std::to_string(bk) + " (A) and " + std::to_string(bk_b) + " (B), not equal multiples of 16", n.span);
        return s;
    }
    std::string T = t.cuda_name();
    Buffer a = mutate_buffer(n.A.buffer), b = mutate_buffer(n.B.buffer), c = local_of(n.C.buffer);
    std::string dims = std::to_string(cl->bm) + ", " + std::to_string(cl->bn) + ", " + std::to_string(bk) + ", " +
                       std::to_string(cl->warps_m) + ", " + std::to_string(cl->warps_n) + ", ";
    std::vector<Stmt> out;
    if (n.clear_accum)
        out.push_back(local_loop(cl->local_size(), "tp_f", [&](const Expr& i) -> Stmt {
            return std::make_shared<BufferStoreNode>(c, std::vector<Expr>{i}, float_imm(0.0), n.span);
        }, n.span));
    Expr caddr = buffer_addr(c, {int_imm(0)}, true, n.span);
    Expr baddr = buffer_addr(b, {int_imm(0), int_imm(0)}, false, n.span);
    if (n.A.buffer->scope == Scope::Shared) {
        bool sw = a->layout == "swizzle" && b->layout == "swizzle";
        std::string fn = "tp::gemm_ss<" + dims + cuda_bool(n.transpose_A) + ", " + cuda_bool(n.transpose_B) + ", " + T + ", " + cuda_bool(sw) + ">";
        out.push_back(device_call(fn, {buffer_addr(a, {int_imm(0), int_imm(0)}, false, n.span), baddr, caddr}, n.span));
    } else {
        const FragLayout* al = layout_of(n.A.buffer);
        bool ok = al && al->kind == FragLayout::Acc && !n.transpose_A && cl->warps_n == 1 && al->warps_n == 1 &&
                  al->bm == cl->bm && al->warps_m == cl->warps_m && al->bn == bk;
        if (!ok) {
            fail("T.gemm with A in registers and a warp grid that splits columns (use policy=T.GemmWarpPolicy.FullRow)", n.span);
            return s;
        }
        std::string fn = "tp::gemm_rs<" + dims + cuda_bool(n.transpose_B) + ", " + T + ", " + local_of(n.A.buffer)->dtype.cuda_name() +
                         ", " + cuda_bool(b->layout == "swizzle") + ">";
        out.push_back(device_call(fn, {buffer_addr(local_of(n.A.buffer), {int_imm(0)}, false, n.span), baddr, caddr}, n.span));
    }
    return make_seq(out, n.span);
}

Stmt FragLowerer::visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) {
    const FragLayout* sl = layout_of(n.src);
    const FragLayout* dl = layout_of(n.dst);
    bool types_ok = reduce_dtype(n.src->dtype) && reduce_dtype(n.dst->dtype);
    if (sl && sl->kind == FragLayout::Striped && dl && dl->kind == FragLayout::Replicated && types_ok &&
        n.src->shape.size() == 2 && one_dim_block && threads % 32 == 0) {
        std::string fn = "tp::reduce_striped<" + std::to_string(*as_const_int(n.src->shape[0])) + ", " +
                         std::to_string(*as_const_int(n.src->shape[1])) + ", " + std::to_string(threads) + ", " +
                         std::to_string(n.dim) + ", " + reduce_op_name(n.reduce_kind) + ", " + cuda_bool(n.clear) +
                         (sl->vec > 1 ? ", " + std::to_string(sl->vec) : std::string()) + ">";
        return device_call(fn, {buffer_addr(local_of(n.src), {int_imm(0)}, false, n.span), buffer_addr(local_of(n.dst), {int_imm(0)}, true, n.span),
                                buffer_addr(scratch, {int_imm(0)}, true, n.span), tid}, n.span);
    }
    FragLayout::Kind want = n.dim == 1 ? FragLayout::Row : FragLayout::Col;
    if (!sl || sl->kind != FragLayout::Acc || !dl || dl->kind != want || !types_ok || n.src->shape.size() != 2 || !one_dim_block) {
        fail(std::string("T.reduce_") + reduce_kind_name(n.reduce_kind) + " from a " + n.src->dtype.name() + " " +
                 (sl ? sl->describe() : "non-fragment") + " buffer into a " + n.dst->dtype.name() + " " +
                 (dl ? dl->describe() : "non-fragment") + " buffer",
             n.span);
        return s;
    }
    bool cross = n.dim == 1 ? sl->warps_n > 1 : sl->warps_m > 1;
    Expr scr = cross ? buffer_addr(scratch, {int_imm(0)}, true, n.span) : make_call("tp.null", {}, DataType(DataType::Handle, 64), n.span);
    std::string fn = std::string(n.dim == 1 ? "tp::reduce_rows<" : "tp::reduce_cols<") + sl->acc_type() + ", " +
                     reduce_op_name(n.reduce_kind) + ", " + cuda_bool(n.clear) + ">";
    return device_call(fn, {buffer_addr(local_of(n.src), {int_imm(0)}, false, n.span),
                            buffer_addr(local_of(n.dst), {int_imm(0)}, true, n.span), scr, tid}, n.span);
}

Stmt FragLowerer::visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) {
    threads = n.num_threads();
    std::vector<Var> tv = n.thread_vars;
    static const char* names[] = {"tx", "ty", "tz"};
    std::vector<int64_t> th = n.threads.empty() ? std::vector<int64_t>{1} : n.threads;
    while (tv.size() < th.size()) tv.push_back(std::make_shared<VarNode>(names[tv.size()], DataType::int32(), VarKind::ThreadIdx, n.span));
    one_dim_block = threads == th[0];
    tid = tv[0];
    int64_t stride = th[0];
    for (size_t i = 1; i < tv.size(); ++i) {
        tid = make_binary(BinaryOp::Add, tid, make_binary(BinaryOp::Mul, tv[i], int_imm(stride)));
        stride *= th[i];
    }
    Stmt body = mutate(n.body);
    if (scratch) body = std::make_shared<AllocateNode>(scratch, nullptr, body, n.span);
    for (const auto& t : print_tiles) body = std::make_shared<AllocateNode>(t, nullptr, body, n.span);
    if (body == n.body && tv.size() == n.thread_vars.size()) return s;
    return std::make_shared<KernelLaunchNode>(n.grid, n.block_vars, th, tv, body, n.span);
}

// Gemm operand tiles that can be swizzled; a gemm needs both or neither of A and B.
std::set<const BufferNode*> swizzled_tiles(const PrimFunc& f) {
    struct G : IRVisitor {
        std::vector<const GemmOpNode*> gemms;
        void visit_GemmOp(const GemmOpNode& n, const Stmt& s) override { gemms.push_back(&n); IRVisitor::visit_GemmOp(n, s); }
    } g;
    g.visit(f.body);
    std::set<const BufferNode*> sw;
    auto ok = [](const Buffer& b) {
        if (b->scope != Scope::Shared || b->shape.size() != 2) return false;
        auto c = as_const_int(b->shape[1]);
        return as_const_int(b->shape[0]) && c && swizzle_applies(b->dtype, *c);
    };
    for (auto* n : g.gemms) {
        if (ok(n->A.buffer)) sw.insert(n->A.buffer.get());
        if (ok(n->B.buffer)) sw.insert(n->B.buffer.get());
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (auto* n : g.gemms) {
            if (n->A.buffer->scope != Scope::Shared) continue;
            bool a = sw.count(n->A.buffer.get()), b = sw.count(n->B.buffer.get());
            if (a != b) {
                sw.erase(n->A.buffer.get());
                sw.erase(n->B.buffer.get());
                changed = true;
            }
        }
    }
    return sw;
}

}  // namespace

PrimFuncPtr layout_inference(const PrimFuncPtr& func, const Target&, DiagnosticEngine& diags) {
    int before = diags.error_count();
    FragLowerer l(diags);
    l.layouts = infer_fragment_layouts(*func, diags);
    if (diags.error_count() != before) return nullptr;
    // Collect fragment and gemm-tile buffers from their allocations.
    struct Allocs : IRVisitor {
        std::vector<Buffer> bufs;
        std::vector<const ReduceOpNode*> reduces;
        void visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override { reduces.push_back(&n); IRVisitor::visit_ReduceOp(n, s); }
        void visit_Allocate(const AllocateNode& n, const Stmt& s) override { bufs.push_back(n.buffer); IRVisitor::visit_Allocate(n, s); }
    } allocs;
    allocs.visit(func->body);
    auto sw = swizzled_tiles(*func);
    int64_t scratch = 0;
    for (const auto& b : allocs.bufs) {
        if (b->scope == Scope::Fragment) {
            auto it = l.layouts.find(b.get());
            if (it == l.layouts.end()) {
                diags.report(DiagKind::NotYetLowered, b->span, {"a fragment with a symbolic shape", "CUDA"});
                continue;
            }
            const FragLayout& fl = it->second;
            auto nb = std::make_shared<BufferNode>(b->name, b->dtype, std::vector<Expr>{int_imm(fl.local_size())}, Scope::Local, b->span);
            l.replaced[b.get()] = nb;
        } else if (sw.count(b.get())) {
            auto nb = std::make_shared<BufferNode>(*b);
            nb->layout = "swizzle";
            l.replaced[b.get()] = nb;
        }
    }
    if (diags.error_count() != before) return nullptr;
    // Shared scratch only for reductions whose rows (columns) span several warps.
    for (auto* r : allocs.reduces) {
        auto it = l.layouts.find(r->src.get());
        if (it == l.layouts.end()) continue;
        const FragLayout& fl = it->second;
        if (fl.kind == FragLayout::Striped && r->src->shape.size() == 2 && r->dim >= 0 && r->dim < 2) {
            int64_t out = *as_const_int(r->src->shape[r->dim == 1 ? 0 : 1]);
            scratch = std::max<int64_t>(scratch, out * std::max<int64_t>(1, fl.threads / 32));
            continue;
        }
        if (fl.kind != FragLayout::Acc) continue;
        if (r->dim == 1 && fl.warps_n > 1) scratch = std::max<int64_t>(scratch, int64_t(fl.warps_n) * fl.bm);
        if (r->dim == 0 && fl.warps_m > 1) scratch = std::max<int64_t>(scratch, int64_t(fl.warps_m) * fl.bn);
    }
    if (scratch > 0)
        l.scratch = std::make_shared<BufferNode>("tp_reduce_scratch", DataType::float32(), std::vector<Expr>{int_imm(scratch)}, Scope::Shared);
    PrimFuncPtr out = mutate_func(func, l);
    return diags.error_count() == before ? out : nullptr;
}

}  // namespace tp::transform
