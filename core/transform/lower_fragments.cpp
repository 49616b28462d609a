// layout_inference's rewrite (see layout_inference.h): fragments become per-thread register
// arrays, T.Parallel loops over them per-thread unrolled loops, and the tile ops that touch
// them per-thread code or calls into the Tensor-Core templates.
// The rewrite is split (see lower_fragments_internal.h; the ops lower in codegen/cuda/ops); this
// file holds the entry point, the launch (thread index, reduction scratch, print tiles) and the
// choice of swizzled gemm tiles.
#include <algorithm>
#include <set>

#include "ir/functor.h"
#include "ops/access.h"
#include "transform/layout_inference.h"
#include "transform/lower_fragments_internal.h"
#include "transform/producer_consumer.h"
#include "transform/shared_budget.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace frag_lowering {

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
    // What this launch's ops add (a kernel file may launch several): only its own.
    store_stage = nullptr;
    print_tiles.clear();
    packed_operands.clear();
    Stmt body = mutate(n.body);
    if (scratch) body = std::make_shared<AllocateNode>(scratch, nullptr, body, n.span);
    if (store_stage) body = std::make_shared<AllocateNode>(store_stage, nullptr, body, n.span);
    for (const auto& t : print_tiles) body = std::make_shared<AllocateNode>(t, nullptr, body, n.span);
    for (const auto& t : packed_operands) body = std::make_shared<AllocateNode>(t, nullptr, body, n.span);
    if (body == n.body && tv.size() == n.thread_vars.size()) return s;
    return std::make_shared<KernelLaunchNode>(n.grid, n.block_vars, th, tv, body, n.span);
}

}  // namespace frag_lowering

namespace {

using frag_lowering::FragLowerer;

struct Gemms : IRVisitor {
    std::vector<const GemmOpNode*> gemms;
    int64_t threads = 0;
    bool one_dim = true;
    void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        threads = n.num_threads();
        one_dim = n.threads.size() <= 1 || n.num_threads() == n.threads[0];
        IRVisitor::visit_KernelLaunch(n, s);
    }
    void visit_GemmOp(const GemmOpNode& n, const Stmt& s) override { gemms.push_back(&n); IRVisitor::visit_GemmOp(n, s); }
};

}  // namespace

// The gemms that lower to wgmma (sm_90a), each with its plan; a remark at every other one.
// A shared tile read by a wgmma gemm and an mma.sync one cannot have both layouts: the wgmma
// gemms on such tiles fall back too. Warp-specialized kernels (planned before) keep their own
// main loop, which reads the mma.sync lowering.
std::map<const GemmOpNode*, ops::WgmmaPlan> plan_wgmma_gemms(const PrimFunc& f, const Target& target, DiagnosticEngine& diags) {
    std::map<const GemmOpNode*, ops::WgmmaPlan> out;
    if (!target.has_wgmma() || f.attrs.count("tp.ws.consumers")) return out;
    Gemms g;
    g.visit(f.body);
    std::map<const GemmOpNode*, std::string> refused;
    for (auto* n : g.gemms) {
        ops::WgmmaPlan p = ops::plan_wgmma(*n, target, g.threads);
        if (!g.one_dim) p = {false, "the block is not one-dimensional"};
        if (p.ok) out[n] = p;
        else refused[n] = p.why;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (auto* n : g.gemms) {
            if (out.count(n)) continue;
            for (auto it = out.begin(); it != out.end();) {
                const GemmOpNode* w = it->first;
                bool shared = w->A.buffer == n->A.buffer || w->A.buffer == n->B.buffer || w->B.buffer == n->A.buffer ||
                              w->B.buffer == n->B.buffer;
                if (!shared) {
                    ++it;
                    continue;
                }
                refused[w] = "an operand tile is also read by a T.gemm that stays on mma.sync";
                it = out.erase(it);
                changed = true;
            }
        }
    }
    // In program order: the map's order is the nodes' addresses, which vary from run to run.
    for (auto* n : g.gemms)
        if (auto it = refused.find(n); it != refused.end())
            diags.report(DiagKind::FastPathNotTaken, n->span, {"wgmma", it->second, "this T.gemm runs on mma.sync"});
    return out;
}

namespace {

// Gemm operand tiles that can be swizzled; a gemm needs both or neither of A and B.
std::set<const BufferNode*> swizzled_tiles(const PrimFunc& f) {
    Gemms g;
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

// Fragments read only as the A operand of RS wgmma gemms and written only by whole-fragment
// copies from float32 fragments or from a shared tile of their own type (an operand
// hoist_gemm_operand moved into registers): they can live as packed 16-bit pairs.
std::set<const BufferNode*> packed_operand_fragments(const PrimFunc& f, const std::map<const GemmOpNode*, ops::WgmmaPlan>& wgmma) {
    std::set<const BufferNode*> cand;
    for (const auto& [g, p] : wgmma)
        if (p.rs && (g->A.buffer->dtype == DataType::float16() || g->A.buffer->dtype == DataType::bfloat16())) cand.insert(g->A.buffer.get());
    struct Uses : IRVisitor {
        std::set<const BufferNode*>* cand;
        const std::map<const GemmOpNode*, ops::WgmmaPlan>* wgmma;
        void drop(const Buffer& b) { cand->erase(b.get()); }
        void visit_GemmOp(const GemmOpNode& n, const Stmt&) override {
            if (!wgmma->count(&n) || !wgmma->at(&n).rs) drop(n.A.buffer);
            drop(n.B.buffer);
            drop(n.C.buffer);
        }
        void visit_CopyOp(const CopyOpNode& n, const Stmt&) override {
            bool conversion = n.src.buffer->scope == Scope::Fragment && n.src.buffer->dtype == DataType::float32() &&
                              whole_buffer(n.src) && whole_buffer(n.dst);
            bool load = n.src.buffer->scope == Scope::Shared && n.src.buffer->dtype == n.dst.buffer->dtype && n.src.buffer->shape.size() == 2 &&
                        whole_buffer(n.src) && whole_buffer(n.dst);
            if (!conversion && !load) drop(n.dst.buffer);
            drop(n.src.buffer);
        }
        void visit_buffer(const Buffer& b) override { drop(b); }  // any other use
        void visit_Allocate(const AllocateNode& n, const Stmt&) override { visit(n.body); }
    } u;
    u.cand = &cand;
    u.wgmma = &wgmma;
    u.visit(f.body);
    return cand;
}

}  // namespace

// The shared bytes the kernel will need with every tile a T.Pipelined loop copies into kept
// num_stages deep (a warp-specialized ring that would like one slot more gives it up first).
int64_t pipelined_shared_bytes(const PrimFunc& f) {
    struct Stages : ops::OpAccessVisitor {
        std::map<const BufferNode*, int64_t> scale;
        std::vector<int64_t> stack;
        void visit_For(const ForNode& n, const Stmt& s) override {
            const bool p = n.for_kind == ForKind::Pipelined && n.num_stages > 1;
            if (p) stack.push_back(n.num_stages);
            IRVisitor::visit_For(n, s);
            if (p) stack.pop_back();
        }
        void on_op(const StmtNode&, const ops::OpAccess& a) override {
            if (stack.empty() || !a.stage_producer) return;
            for (const auto& w : a.writes)
                if (w.buffer->scope == Scope::Shared) scale[w.buffer.get()] = std::max(scale[w.buffer.get()], stack.back());
        }
    } st;
    st.visit(f.body);
    return shared_bytes(f, true, st.scale);
}

// Whether the kernel may stage TMA stores: empty when it may, else why not.
std::string tma_store_room(const PrimFunc& f, const Target& target, int64_t threads) {
    auto flag = [&](const char* k) {
        auto it = f.attrs.find(k);
        return it != f.attrs.end() && it->second == "true";
    };
    if (flag("tl.disable_tma_lower")) return "`tl.disable_tma_lower` is set";
    if (flag("tp.disable_tma_store")) return "`tp.disable_tma_store` is set";
    const int64_t need = pipelined_shared_bytes(f) + threads / 128 * 16384 + 1024;
    if (need > shared_limit(target, true))
        return "its staging (16 KB per warpgroup) would not fit beside the kernel's shared tiles (" + std::to_string(need) + " bytes)";
    return "";
}

PrimFuncPtr layout_inference(const PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags) {
    int before = diags.error_count();
    FragLowerer l(diags);
    l.target = &target;
    for (const auto& p : func->params)
        if (p.buffer) l.params.insert(p.buffer.get());
    l.read_globals = global_reads(*func);
    if (target.has_tma()) {
        Gemms g;
        g.visit(func->body);
        l.tma_store_why = tma_store_room(*func, target, g.threads);
        l.tma_store = l.tma_store_why.empty();
    }
    l.wgmma = plan_wgmma_gemms(*func, target, diags);
    l.layouts = infer_fragment_layouts(*func, diags, &l.wgmma);
    l.packed = packed_operand_fragments(*func, l.wgmma);
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
    // wgmma operand tiles: the swizzle of their row width, or 128-byte panels when wider.
    std::map<const BufferNode*, int> wgmma_tiles;
    for (const auto& [g, p] : l.wgmma) {
        if (!p.rs) wgmma_tiles[g->A.buffer.get()] = p.a_swizzle;
        wgmma_tiles[g->B.buffer.get()] = p.b_swizzle;
    }
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
            if (l.packed.count(b.get()) && fl.local_size() % 2 == 0)
                nb = std::make_shared<BufferNode>(b->name, DataType(DataType::UInt, 32), std::vector<Expr>{int_imm(fl.local_size() / 2)},
                                                  Scope::Local, b->span);
            else
                l.packed.erase(b.get());
            l.replaced[b.get()] = nb;
        } else if (auto w = wgmma_tiles.find(b.get()); w != wgmma_tiles.end()) {
            auto nb = std::make_shared<BufferNode>(*b);
            nb->layout = w->second == 2 ? "panels" : "swizzle";
            l.replaced[b.get()] = nb;
        } else if (sw.count(b.get())) {
            auto nb = std::make_shared<BufferNode>(*b);
            nb->layout = "swizzle";
            l.replaced[b.get()] = nb;
        }
    }
    if (diags.error_count() != before) return nullptr;
    // Shared scratch only for reductions whose rows (columns) span several warps.
    for (auto* r : allocs.reduces)
        if (auto it = l.layouts.find(r->src.get()); it != l.layouts.end()) {
            auto dst = l.layouts.find(r->dst.get());
            scratch = std::max(scratch, codegen::cuda::reduce_scratch(*r, it->second, dst == l.layouts.end() ? nullptr : &dst->second));
        }
    if (scratch > 0)
        l.scratch = std::make_shared<BufferNode>("tp_reduce_scratch", DataType::float32(), std::vector<Expr>{int_imm(scratch)}, Scope::Shared);
    PrimFuncPtr out = mutate_func(func, l);
    if (out && !l.tma_maps.empty()) {  // producer-consumer appends its loads' maps to these
        auto f = std::make_shared<PrimFunc>(*out);
        set_tensor_maps(*f, l.tma_maps);
        std::vector<std::string> stored;
        for (const auto& p : f->params)
            if (p.buffer && l.tma_stored.count(p.buffer.get())) stored.push_back(p.name);
        add_tma_store_params(*f, stored);
        out = f;
    }
    if (out && !l.wgmma.empty()) {
        // Codegen aligns the tiles to 1024 bytes (wgmma's swizzle atoms) and includes the templates.
        auto f = std::make_shared<PrimFunc>(*out);
        f->attrs["tp.wgmma"] = "1";
        // Hopper's fp8 wgmma adds products into the fp32 accumulator with fewer mantissa bits
        // than an fp32 add (the reason DeepSeek-V3 promotes partial sums): the check against
        // the interpreter's exact fp32 sums allows that much more (rel. Frobenius 1e-3).
        for (const auto& [g, p] : l.wgmma)
            if (g->A.buffer->dtype.bytes() == 1) f->attrs["tp.check_tolerance"] = "1e-3";
        out = f;
    }
    return diags.error_count() == before ? out : nullptr;
}

}  // namespace tp::transform
