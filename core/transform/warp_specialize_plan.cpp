// plan_warp_specialized (see warp_specialize.h): on the tile-level IR, before layout-inference,
// matches the one T.Pipelined copy/copy/gemm loop the Hopper templates take and records the plan
// (FullRow gemm, BM * 2 threads, tp.ws.* attributes) that warp_specialize.cpp carries out after
// lower-tile-ops. Planning this early is what lets layout-inference give C the wgmma layout.
#include "transform/warp_specialize.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "ir/functor.h"
#include "transform/tile_lowering.h"
#include "transform/warp_specialize_internal.h"

namespace tp::transform {

using namespace ir;
using namespace ws_gemm;

namespace {

bool is_16bit_mma(DataType t) { return t == DataType::float16() || t == DataType::bfloat16(); }

struct TileMatch {
    const ForNode* loop = nullptr;
    const GemmOpNode* gemm = nullptr;
};

// Epilogue statements that lower to per-thread code only (no shared memory, no barriers).
struct EpilogueCheck : IRVisitor {
    bool ok = true;
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        ok &= n.buffer->scope != Scope::Shared;
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        ok &= n.buffer->scope != Scope::Shared;
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_CopyOp(const CopyOpNode& n, const Stmt&) override {
        ok &= n.src.buffer->scope == Scope::Fragment && n.dst.buffer->scope == Scope::Global;
    }
    void visit_FillOp(const FillOpNode& n, const Stmt&) override { ok &= n.dst.buffer->scope == Scope::Fragment; }
    void visit_GemmOp(const GemmOpNode&, const Stmt&) override { ok = false; }
    void visit_ReduceOp(const ReduceOpNode&, const Stmt&) override { ok = false; }
    void visit_AtomicAddOp(const AtomicAddOpNode&, const Stmt&) override { ok = false; }
    void visit_PrintOp(const PrintOpNode&, const Stmt&) override { ok = false; }
    void visit_For(const ForNode& n, const Stmt& s) override {
        ok &= n.for_kind != ForKind::Pipelined;
        IRVisitor::visit_For(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        ok &= n.op != "__syncthreads";
        IRVisitor::visit_Call(n, e);
    }
};

bool global_tile_ok(const CopyOpNode& c, int64_t rows, int64_t cols) {
    const Buffer& g = c.src.buffer;
    auto gs = shape_2d(g);
    if (g->scope != Scope::Global || !gs || (gs->second * g->dtype.bytes()) % 16 != 0) return false;
    auto t = tile_2d(c.src);
    return t && t->rows == rows && t->cols == cols;
}

std::optional<TileMatch> match_tile_level(const Stmt& top, const Target& target, int64_t& stages, int64_t& consumers) {
    std::vector<Stmt> stmts;
    flatten_seq(top, stmts);
    TileMatch m;
    size_t at = 0;
    for (size_t i = 0; i < stmts.size(); ++i) {
        auto* f = stmts[i]->as<ForNode>();
        if (!f || f->for_kind != ForKind::Pipelined) continue;
        if (m.loop) return std::nullopt;
        m.loop = f;
        at = i;
    }
    if (!m.loop) return std::nullopt;
    for (size_t i = 0; i < at; ++i) {
        const Stmt& s = stmts[i];
        bool ok = s->as<SwizzleOpNode>() || s->as<LayoutAnnotationOpNode>() ||
                  (s->as<FillOpNode>() && s->as<FillOpNode>()->dst.buffer->scope == Scope::Fragment);
        if (!ok) return std::nullopt;
    }
    EpilogueCheck epi;
    for (size_t i = at + 1; i < stmts.size(); ++i) epi.visit(stmts[i]);
    if (!epi.ok) return std::nullopt;

    std::vector<Stmt> body;
    flatten_seq(m.loop->body, body);
    if (body.size() != 3) return std::nullopt;
    auto *c0 = body[0]->as<CopyOpNode>(), *c1 = body[1]->as<CopyOpNode>();
    m.gemm = body[2]->as<GemmOpNode>();
    if (!c0 || !c1 || !m.gemm) return std::nullopt;
    const GemmOpNode& g = *m.gemm;
    const CopyOpNode* ca = c0->dst.buffer == g.A.buffer ? c0 : (c1->dst.buffer == g.A.buffer ? c1 : nullptr);
    const CopyOpNode* cb = c0->dst.buffer == g.B.buffer ? c0 : (c1->dst.buffer == g.B.buffer ? c1 : nullptr);
    if (!ca || !cb || ca == cb || g.transpose_A || g.clear_accum) return std::nullopt;
    if (g.A.buffer->scope != Scope::Shared || g.B.buffer->scope != Scope::Shared || g.C.buffer->scope != Scope::Fragment)
        return std::nullopt;
    if (!whole_buffer(g.A) || !whole_buffer(g.B) || !whole_buffer(g.C) || !whole_buffer(ca->dst) || !whole_buffer(cb->dst))
        return std::nullopt;
    DataType t = g.A.buffer->dtype;
    if (!is_16bit_mma(t) || g.B.buffer->dtype != t || g.C.buffer->dtype != DataType::float32() ||
        ca->src.buffer->dtype != t || cb->src.buffer->dtype != t)
        return std::nullopt;
    auto as = shape_2d(g.A.buffer), bs = shape_2d(g.B.buffer), cs = shape_2d(g.C.buffer);
    if (!as || !bs || !cs) return std::nullopt;
    int64_t bm = as->first, bk = as->second;
    int64_t bn = g.transpose_B ? bs->first : bs->second;
    int64_t bk_b = g.transpose_B ? bs->second : bs->first;
    if (bk != 64 || bk_b != 64 || (bm != 64 && bm != 128) || bn % 64 != 0 || bn > 256 || cs->first != bm || cs->second != bn)
        return std::nullopt;
    if (!global_tile_ok(*ca, as->first, as->second) || !global_tile_ok(*cb, bs->first, bs->second)) return std::nullopt;
    // The shared tiles must live only in this loop (the ring replaces them).
    consumers = bm / 64;
    int64_t stage_bytes = (bm * bk + bk * bn) * t.bytes();
    stages = std::max<int64_t>(m.loop->num_stages, 2);
    int64_t limit = target.max_smem_per_block > 0 ? target.max_smem_per_block : 227 * 1024;
    while (stages > 2 && stages * stage_bytes + 16 * stages + 1024 > limit) --stages;
    if (stages * stage_bytes + 16 * stages + 1024 > limit) return std::nullopt;
    return m;
}

}  // namespace

PrimFuncPtr plan_warp_specialized(const PrimFuncPtr& func, const Target& target) {
    if (!target.has_wgmma() || !func) return func;
    int64_t stages = 0, consumers = 0;
    const GemmOpNode* gemm = nullptr;
    TopRewriter rw;
    rw.top = [&](const Stmt& top) -> Stmt {
        auto m = match_tile_level(top, target, stages, consumers);
        if (!m) return nullptr;
        gemm = m->gemm;
        // FullRow gives every warp 16 whole rows: the wgmma accumulator layout.
        struct Policy : IRMutator {
            const GemmOpNode* g;
            Stmt visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
                if (&n != g) return s;
                auto c = std::make_shared<GemmOpNode>(n);
                c->policy = GemmWarpPolicy::FullRow;
                return c;
            }
        } pol;
        pol.g = gemm;
        return pol.mutate(top);
    };
    bool one_dim = true;
    rw.relaunch = [&](const KernelLaunchNode& n) {
        KernelLaunchNode k = n;
        one_dim = n.threads.size() <= 1 || n.num_threads() == n.threads[0];
        k.threads = {128 * consumers};
        return k;
    };
    auto out = std::make_shared<PrimFunc>(*func);
    out->body = rw.mutate(func->body);
    if (!rw.done || !one_dim) return func;
    out->attrs["tp.ws.consumers"] = std::to_string(consumers);
    out->attrs["tp.ws.stages"] = std::to_string(stages);
    // to_string rather than a "1" / "0" literal: in this smaller file GCC 12 inlines the string
    // assignment and then reports a false -Wrestrict overlap (GCC PR 105651).
    out->attrs["tp.ws.trans_b"] = std::to_string(gemm->transpose_B ? 1 : 0);
    return out;
}

}  // namespace tp::transform
