// plan_warp_specialized (see warp_specialize.h): on the tile-level IR, before layout-inference,
// matches the one T.Pipelined copy/copy/gemm loop the Hopper templates take and records the plan
// (FullRow gemm, BM * 2 threads, tp.ws.* attributes) that warp_specialize.cpp carries out after
// lower-tile-ops. Planning this early is what lets layout-inference give C the wgmma layout.
#include "transform/warp_specialize.h"

#include <algorithm>
#include <map>
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
    const CopyOpNode *copy_a = nullptr, *copy_b = nullptr;
    size_t at = 0;         // the loop's place in the statement list
    bool pairs = false;    // block_K = 32: iterations go in pairs (coarsen_k_pairs)
    bool store_tma = false;  // the tile ends with T.copy(C_local, C[...]): staged TMA store
};

// The last statement stores the whole accumulator to a 2-D 16-bit tensor whose rows a tensor
// map can describe (16-byte strides): tp::WsGemm::store_tma can replace the register store.
bool tma_store_ok(const Stmt& last, const GemmOpNode& g) {
    auto* c = last ? last->as<CopyOpNode>() : nullptr;
    if (!c || c->src.buffer != g.C.buffer || !whole_buffer(c->src)) return false;
    const Buffer& d = c->dst.buffer;
    auto ds = shape_2d(d);
    return d->scope == Scope::Global && ds && is_16bit_mma(d->dtype) && (ds->second * d->dtype.bytes()) % 16 == 0;
}

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

// Empty with `why` (for the remark) when the kernel is not the one loop the template takes.
std::optional<TileMatch> match_tile_level(const Stmt& top, const Target& target, int64_t& stages, int64_t& consumers,
                                          std::string& why, Span& where) {
    auto fail = [&](const char* w) -> std::optional<TileMatch> {
        why = w;
        return std::nullopt;
    };
    std::vector<Stmt> stmts;
    flatten_seq(top, stmts);
    TileMatch m;
    size_t at = 0;
    for (size_t i = 0; i < stmts.size(); ++i) {
        auto* f = stmts[i]->as<ForNode>();
        if (!f || f->for_kind != ForKind::Pipelined) continue;
        if (m.loop) return fail("the kernel has more than one T.Pipelined loop");
        m.loop = f;
        at = i;
        where = f->span;
    }
    if (!m.loop) return std::nullopt;
    for (size_t i = 0; i < at; ++i) {
        const Stmt& s = stmts[i];
        bool ok = s->as<SwizzleOpNode>() || s->as<LayoutAnnotationOpNode>() ||
                  (s->as<FillOpNode>() && s->as<FillOpNode>()->dst.buffer->scope == Scope::Fragment);
        if (!ok) return fail("only T.use_swizzle, T.annotate_layout and fragment fills may come before the T.Pipelined loop");
    }
    EpilogueCheck epi;
    for (size_t i = at + 1; i < stmts.size(); ++i) epi.visit(stmts[i]);
    if (!epi.ok) return fail("the code after the loop uses shared memory, barriers or other tile ops the consumers cannot run alone");

    std::vector<Stmt> body;
    flatten_seq(m.loop->body, body);
    if (body.size() != 3) return fail("the loop body is not exactly one T.copy of A, one of B and one T.gemm (a general warp-specialization pass is not built yet)");
    auto *c0 = body[0]->as<CopyOpNode>(), *c1 = body[1]->as<CopyOpNode>();
    m.gemm = body[2]->as<GemmOpNode>();
    if (!c0 || !c1 || !m.gemm) return fail("the loop body is not exactly one T.copy of A, one of B and one T.gemm (a general warp-specialization pass is not built yet)");
    const GemmOpNode& g = *m.gemm;
    const CopyOpNode* ca = c0->dst.buffer == g.A.buffer ? c0 : (c1->dst.buffer == g.A.buffer ? c1 : nullptr);
    const CopyOpNode* cb = c0->dst.buffer == g.B.buffer ? c0 : (c1->dst.buffer == g.B.buffer ? c1 : nullptr);
    if (!ca || !cb || ca == cb || g.transpose_A || g.clear_accum) return fail("the copies do not feed A and B of the T.gemm, or it transposes A or clears its accumulator");
    if (g.A.buffer->scope != Scope::Shared || g.B.buffer->scope != Scope::Shared || g.C.buffer->scope != Scope::Fragment)
        return fail("A and B must be shared tiles and C a fragment");
    if (!whole_buffer(g.A) || !whole_buffer(g.B) || !whole_buffer(g.C) || !whole_buffer(ca->dst) || !whole_buffer(cb->dst))
        return fail("A, B, C and the copied tiles must be whole buffers");
    DataType t = g.A.buffer->dtype;
    if (!is_16bit_mma(t) || g.B.buffer->dtype != t || g.C.buffer->dtype != DataType::float32() ||
        ca->src.buffer->dtype != t || cb->src.buffer->dtype != t)
        return fail("the template takes float16 or bfloat16 operands with a float32 accumulator");
    auto as = shape_2d(g.A.buffer), bs = shape_2d(g.B.buffer), cs = shape_2d(g.C.buffer);
    if (!as || !bs || !cs) return fail("the tiles are not 2-D with constant shapes");
    int64_t bm = as->first, bk = as->second;
    int64_t bn = g.transpose_B ? bs->first : bs->second;
    int64_t bk_b = g.transpose_B ? bs->second : bs->first;
    // block_K = 64 fills one 128-byte swizzle row; 32 is taken as pairs of iterations.
    m.pairs = bk == 32 && bk_b == 32;
    if ((bk != 64 && !m.pairs) || bk_b != bk || (bm != 64 && bm != 128) || bn % 64 != 0 || bn > 256 || cs->first != bm ||
        cs->second != bn)
        return fail("the template takes block_K 64 (or 32 in pairs), block_M 64 or 128 and block_N a multiple of 64 up to 256");
    if (!global_tile_ok(*ca, as->first, as->second) || !global_tile_ok(*cb, bs->first, bs->second)) return fail("the copies do not read whole 2-D tiles of global tensors with 16-byte rows");
    m.copy_a = ca;
    m.copy_b = cb;
    m.at = at;
    bk = 64;
    // The shared tiles must live only in this loop (the ring replaces them).
    consumers = bm / 64;
    int64_t stage_bytes = (bm * bk + bk * bn) * t.bytes();
    // The ring wants at least 4 slots: a consumer holds two (the k-step it multiplies and the
    // one whose wgmma group is still in flight), so with 2 or 3 the producer can run at most
    // one load ahead and every k-step waits on TMA latency (H200, 128 x 128 tiles: 0.2616 ms
    // with 3 slots, 0.1937 with 4). A persistent block owns its SM, so the shared memory the
    // extra slots take costs no occupancy; larger num_stages are kept while they fit.
    stages = std::max<int64_t>(m.loop->num_stages, 4);
    int64_t limit = target.max_smem_per_block > 0 ? target.max_smem_per_block : 227 * 1024;
    auto fits = [&](int64_t n, int64_t staging) { return n * stage_bytes + staging + 16 * n + 1024 <= limit; };
    // The staged store frees the consumers from waiting on global writes (H200, 128 x 256:
    // 3 slots + a whole-tile staging buffer beat 4 slots + register stores, 0.1926 against
    // 0.1990 ms). Subtiled, it needs two 64 x 64 panels per warpgroup rather than the tile
    // (32 KB instead of 64 KB at 128 x 256), which leaves room for the fourth slot.
    const int64_t staging = bm * ws_store_buffers(bn) * 64 * t.bytes();
    m.store_tma = at + 1 < stmts.size() && tma_store_ok(stmts.back(), g) && fits(2, staging);
    while (stages > 2 && !fits(stages, m.store_tma ? staging : 0)) --stages;
    if (!fits(stages, m.store_tma ? staging : 0)) return fail("the ring's stages do not fit in shared memory");
    return m;
}

}  // namespace

PrimFuncPtr plan_warp_specialized(const PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags) {
    if (!target.has_wgmma() || !func) return func;
    std::string why;
    Span where;
    int64_t stages = 0, consumers = 0;
    bool store_tma = false;
    const GemmOpNode* gemm = nullptr;
    std::map<const BufferNode*, Buffer> rebind;  // shared tiles widened by coarsen_k_pairs
    TopRewriter rw;
    rw.top = [&](const Stmt& top) -> Stmt {
        auto m = match_tile_level(top, target, stages, consumers, why, where);
        if (!m) return nullptr;
        gemm = m->gemm;
        store_tma = m->store_tma;
        Stmt body = top;
        if (m->pairs) {
            std::vector<Stmt> stmts;
            flatten_seq(top, stmts);
            // A layout annotated for the 32-wide tiles would not describe the widened ones.
            for (size_t i = 0; i < m->at; ++i)
                if (stmts[i]->as<LayoutAnnotationOpNode>()) {
                    why = "block_K 32 is taken in pairs, which a layout annotated for the 32-wide tiles would not describe";
                    return nullptr;
                }
            auto c = coarsen_k_pairs(*m->loop, *m->gemm, *m->copy_a, *m->copy_b);
            if (!c) {
                why = "the block_K 32 iterations cannot be taken in pairs";
                return nullptr;
            }
            stmts[m->at] = c->loop;
            body = make_seq(stmts, top->span);
            gemm = c->gemm;
            rebind = c->rebind;
        }
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
        return pol.mutate(body);
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
    if (!one_dim) why = "the block is not one-dimensional";
    if (!rw.done || !one_dim) {
        if (!why.empty() && where.valid())
            diags.report(DiagKind::FastPathNotTaken, where,
                         {"warp specialization (a TMA producer and wgmma consumers)", why, "the loop keeps cp.async stages"});
        return func;
    }
    if (!rebind.empty()) out->body = rebind_buffers(out->body, rebind);
    out->attrs["tp.ws.consumers"] = std::to_string(consumers);
    out->attrs["tp.ws.stages"] = std::to_string(stages);
    // to_string rather than a "1" / "0" literal: in this smaller file GCC 12 inlines the string
    // assignment and then reports a false -Wrestrict overlap (GCC PR 105651).
    out->attrs["tp.ws.trans_b"] = std::to_string(gemm->transpose_B ? 1 : 0);
    out->attrs["tp.ws.store_tma"] = std::to_string(store_tma ? 1 : 0);
    return out;
}

}  // namespace tp::transform
