// unstage_shared (see unstage_shared.h).
#include "transform/unstage_shared.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/functor.h"
#include "ir/intrinsics.h"
#include "transform/box_predicate.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

using BufSet = std::set<const BufferNode*>;

// How a statement (or the function) refers to buffers: every reference, the element loads
// (values only: not an argument of a call that may take the element's address) with the
// iterations of the loops around each, and what tile ops read.
struct Uses : IRVisitor {
    std::map<const BufferNode*, int> refs, loads, tile_reads;
    std::map<const BufferNode*, int64_t> load_iters;  // -1: a loop of unknown extent
    std::vector<int64_t> extents;
    int opaque_calls = 0;

    void visit_buffer(const Buffer& b) override {
        if (b) ++refs[b.get()];
        IRVisitor::visit_buffer(b);
    }
    void visit_For(const ForNode& n, const Stmt& s) override {
        auto e = as_const_int(n.extent);
        extents.push_back(e ? *e : -1);
        IRVisitor::visit_For(n, s);
        extents.pop_back();
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        if (opaque_calls == 0) {
            ++loads[n.buffer.get()];
            int64_t it = 1;
            for (int64_t x : extents) it = (x < 0 || it < 0) ? -1 : it * x;
            int64_t& acc = load_iters[n.buffer.get()];
            acc = (it < 0 || acc < 0) ? -1 : acc + it;
        }
        IRVisitor::visit_BufferLoad(n, e);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        bool opaque = !find_intrinsic(n.op);
        opaque_calls += opaque;
        IRVisitor::visit_Call(n, e);
        opaque_calls -= opaque;
    }
    void visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
        ++tile_reads[n.src.buffer.get()];
        IRVisitor::visit_CopyOp(n, s);
    }
    void visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        ++tile_reads[n.A.buffer.get()];
        ++tile_reads[n.B.buffer.get()];
        IRVisitor::visit_GemmOp(n, s);
    }
    void visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override {
        ++tile_reads[n.src.get()];
        IRVisitor::visit_ReduceOp(n, s);
    }
    int get(const std::map<const BufferNode*, int>& m, const BufferNode* b) const {
        auto it = m.find(b);
        return it == m.end() ? 0 : it->second;
    }
    bool only_loads(const BufferNode* b) const { return get(refs, b) == get(loads, b); }
    bool only_read(const BufferNode* b) const { return get(refs, b) == get(loads, b) + get(tile_reads, b); }
    bool reads(const BufferNode* b) const { return get(loads, b) + get(tile_reads, b) > 0; }
};

Uses uses_of(const Stmt& s) {
    Uses u;
    if (s) u.visit(s);
    return u;
}

struct GemmOperands : IRVisitor {
    BufSet bufs;
    void visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        bufs.insert({n.A.buffer.get(), n.B.buffer.get(), n.C.buffer.get()});
        IRVisitor::visit_GemmOp(n, s);
    }
};

bool touches_any(const Uses& u, const BufSet& bufs) {
    for (const auto& [b, n] : u.refs)
        if (n > 0 && bufs.count(b)) return true;
    return false;
}

int64_t numel(const Buffer& b) {
    int64_t n = 1;
    for (const auto& d : b->shape) {
        auto c = as_const_int(d);
        if (!c) return -1;
        n *= *c;
    }
    return n;
}

// The global element (and its in-tensor condition, null when always inside) that element `idx`
// of `whole` holds when `whole` is the whole-buffer side of a copy with `global`: the non-unit
// dims of both regions pair in order, as copy_nest pairs them. A dim whose index provably stays
// below the tensor's extent over `box` (the launch's block indices, the copy's own extents) is
// not tested; copy_nest tests every dim whose start is not a constant.
std::pair<std::vector<Expr>, Expr> global_element(const BufferRegion& whole, const BufferRegion& global, const std::vector<Expr>& idx, Box box,
                                                  Span span) {
    auto wd = non_unit_dims(whole);
    auto vars = nest_vars(wd.size(), span);
    std::map<const VarNode*, Expr> values;
    for (size_t k = 0; k < wd.size(); ++k) {
        values[vars[k].get()] = idx[wd[k]];
        auto ext = as_const_int(whole.buffer->shape[wd[k]]);
        if (ext) box[vars[k].get()] = *ext;
    }
    std::vector<Expr> gidx;
    Expr cond;
    size_t k = 0;
    for (size_t d = 0; d < global.region.size(); ++d) {
        const Range& rg = global.region[d];
        Expr e = as_const_int(rg.extent) == 1 ? rg.min : make_binary(BinaryOp::Add, rg.min, vars[k++]);
        auto dim = as_const_int(global.buffer->shape[d]);
        auto a = affine_in(e, box);
        auto rest = a ? as_const_int(a->rest) : std::nullopt;
        int64_t hi = rest ? *rest : 0;
        bool inside = dim && rest;
        for (const auto& [v, c] : a ? a->coef : std::map<const VarNode*, int64_t>{}) {
            inside = inside && c >= 0 && box.count(v);
            if (inside) hi += c * (box.at(v) - 1);
        }
        if (!(inside && hi < *dim)) {
            Expr c = make_binary(BinaryOp::LT, e, global.buffer->shape[d]);
            cond = cond ? make_binary(BinaryOp::And, cond, c) : c;
        }
        gidx.push_back(substitute(e, values));
    }
    if (cond) cond = substitute(cond, values);
    return {gidx, cond};
}

bool copy_between(const CopyOpNode* c, bool into_shared) {
    if (!c || c->barrier) return false;
    const BufferRegion& sh = into_shared ? c->dst : c->src;
    const BufferRegion& gl = into_shared ? c->src : c->dst;
    if (sh.buffer->scope != Scope::Shared || gl.buffer->scope != Scope::Global || !whole_buffer(sh)) return false;
    auto sd = non_unit_dims(sh), gd = non_unit_dims(gl);
    if (sd.size() != gd.size()) return false;
    for (size_t i = 0; i < sd.size(); ++i)
        if (!same_extent(sh.region[sd[i]].extent, gl.region[gd[i]].extent)) return false;
    return true;
}

// Whether statement s sets every element of shared buffer b without reading it.
bool overwrites_whole(const Stmt& s, const BufferNode* b) {
    if (uses_of(s).get(uses_of(s).loads, b) > 0) return false;
    if (auto* c = s->as<CopyOpNode>()) return c->dst.buffer.get() == b && whole_buffer(c->dst);
    if (auto* f = s->as<FillOpNode>()) return f->dst.buffer.get() == b && whole_buffer(f->dst);
    auto nest = match_parallel_nest(s);
    return nest && nest->store->buffer.get() == b && nest->stores_whole_buffer();
}

// Loads of one buffer replaced by the global element the copy put there (0 outside the tensor).
struct ForwardLoads : IRMutator {
    const CopyOpNode* copy = nullptr;
    Box box;
    Expr visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        if (n.buffer != copy->dst.buffer) return IRMutator::visit_BufferLoad(n, e);
        std::vector<Expr> idx;
        for (const auto& i : n.indices) idx.push_back(mutate(i));
        auto [gidx, cond] = global_element(copy->dst, copy->src, idx, box, n.span);
        Expr v = make_cast(n.buffer->dtype, std::make_shared<BufferLoadNode>(copy->src.buffer, gidx, n.span), n.span);
        return cond ? make_select(cond, v, make_cast(n.buffer->dtype, int_imm(0)), n.span) : v;
    }
};

// Form 1 at out[i]: whether it applied (out rewritten in place).
bool forward_copy_in(std::vector<Stmt>& out, size_t i, const Uses& func_uses, const BufSet& gemm_bufs, const Box& launch) {
    auto* c = out[i] ? out[i]->as<CopyOpNode>() : nullptr;
    if (!copy_between(c, true) || !func_uses.only_read(c->src.buffer.get())) return false;
    const BufferNode* s = c->dst.buffer.get();
    size_t end = i + 1;
    int64_t iters = 0;
    for (; end < out.size(); ++end) {
        Uses u = uses_of(out[end]);
        if (u.get(u.refs, s) == 0) continue;
        if (!u.only_loads(s)) break;
        if (touches_any(u, gemm_bufs)) return false;
        int64_t n = u.load_iters[s];
        iters = (n < 0 || iters < 0) ? -1 : iters + n;
    }
    if (end < out.size() && !overwrites_whole(out[end], s)) return false;
    // Each staged element read once in all: more reads would go to global memory (L1) each time.
    if (iters < 0 || iters > numel(c->dst.buffer)) return false;
    ForwardLoads f;
    f.copy = c;
    f.box = launch;
    for (size_t k = i + 1; k < end; ++k) out[k] = f.mutate(out[k]);
    out[i] = nullptr;
    return true;
}

// Form 2 at out[i].
bool forward_stores_out(std::vector<Stmt>& out, size_t i, const Uses& func_uses, const BufSet& gemm_bufs, const Box& launch) {
    auto nest = out[i] ? match_parallel_nest(out[i]) : std::nullopt;
    if (!nest || nest->store->buffer->scope != Scope::Shared || !nest->stores_whole_buffer()) return false;
    const BufferNode* s = nest->store->buffer.get();
    Uses here = uses_of(out[i]);
    if (here.get(here.loads, s) > 0 || touches_any(here, gemm_bufs)) return false;
    size_t k = i + 1;
    while (k < out.size() && uses_of(out[k]).get(uses_of(out[k]).refs, s) == 0) ++k;
    auto* c = k < out.size() ? out[k]->as<CopyOpNode>() : nullptr;
    if (!copy_between(c, false) || c->src.buffer.get() != s) return false;
    const BufferNode* g = c->dst.buffer.get();
    if (func_uses.reads(g)) return false;  // nothing in the kernel may see the stores early
    for (size_t m = i + 1; m < k; ++m)
        if (uses_of(out[m]).get(uses_of(out[m]).refs, g) > 0) return false;
    for (size_t m = k + 1; m < out.size(); ++m) {
        Uses u = uses_of(out[m]);
        if (u.get(u.refs, s) == 0) continue;
        if (!overwrites_whole(out[m], s)) return false;
        break;
    }
    const BufferStoreNode* st = nest->store;
    auto [gidx, cond] = global_element(c->src, c->dst, st->indices, launch, st->span);
    Expr v = make_cast(g->dtype, make_cast(s->dtype, st->value, st->span), st->span);
    Stmt store = std::make_shared<BufferStoreNode>(c->dst.buffer, gidx, v, st->span);
    if (cond) store = std::make_shared<IfThenElseNode>(cond, store, nullptr, st->span);
    out[i] = rebuild(*nest, store);
    out[k] = nullptr;
    return true;
}

// Allocations of shared buffers nothing refers to any more.
struct DropUnused : IRMutator {
    Stmt visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        Stmt body = mutate(n.body);
        if (n.buffer->scope == Scope::Shared && uses_of(body).get(uses_of(body).refs, n.buffer.get()) == 0) return body;
        if (body == n.body) return s;
        auto a = std::make_shared<AllocateNode>(n);
        a->body = body;
        return a;
    }
};

// The statement list a launch runs once: its body under the allocations and bindings.
struct TopLists : IRMutator {
    Uses func_uses;
    BufSet gemm_bufs;
    bool changed = false;
    Box launch;  // the block indices of the launch being rewritten, each over its grid extent
    Stmt top(const Stmt& s) {
        if (auto* a = s->as<AllocateNode>()) {
            Stmt b = top(a->body);
            if (b == a->body) return s;
            auto n = std::make_shared<AllocateNode>(*a);
            n->body = b;
            return n;
        }
        auto* seq = s->as<SeqStmtNode>();
        if (!seq) return s;
        // One rewrite per walk: the next is judged on the function as rewritten.
        std::vector<Stmt> out = seq->seq;
        for (size_t i = 0; i < out.size() && !changed; ++i)
            changed = forward_copy_in(out, i, func_uses, gemm_bufs, launch) || forward_stores_out(out, i, func_uses, gemm_bufs, launch);
        return changed ? make_seq(out, s->span) : s;
    }
    std::vector<bool> eligible;  // per launch, in program order
    size_t launch_index = 0;
    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        size_t me = launch_index++;
        if (me >= eligible.size() || !eligible[me]) return s;
        launch.clear();
        for (size_t d = 0; d < n.grid.size() && d < n.block_vars.size(); ++d)
            if (auto g = as_const_int(n.grid[d])) launch[n.block_vars[d].get()] = *g;
        Stmt b = changed ? n.body : top(n.body);
        if (b == n.body) return s;
        auto k = std::make_shared<KernelLaunchNode>(n);
        k->body = b;
        return k;
    }
};

// Whether shared memory, not the thread count, limits how many blocks of each launch an SM holds
// (CUDA reserves 1 KB of shared memory a block). Where it does not, the staging costs little and
// its wide copies can be faster than element loads: TileLang's elementwise add (12 KB a block of
// 128 threads) ran 1.5% slower unstaged on the H200.
struct SharedLimited : IRVisitor {
    const Target* target = nullptr;
    bool force = false;
    std::vector<bool> launches;
    int64_t bytes = 0;
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        int64_t e = numel(n.buffer);
        if (n.buffer->scope == Scope::Shared && e > 0) bytes += e * n.buffer->dtype.bytes();
        IRVisitor::visit_Allocate(n, s);
    }
    void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        bytes = 0;
        IRVisitor::visit_KernelLaunch(n, s);
        int64_t threads = 1;
        for (int64_t t : n.threads) threads *= t;
        int64_t by_threads = target->max_threads_per_sm / std::max<int64_t>(threads, 1);
        if (target->max_blocks_per_sm > 0) by_threads = std::min<int64_t>(by_threads, target->max_blocks_per_sm);
        bool limited = bytes > 0 && target->smem_per_sm / (bytes + 1024) < by_threads;
        launches.push_back(force || limited);
    }
};

}  // namespace

PrimFuncPtr unstage_shared(const PrimFuncPtr& func, const Target& target) {
    auto it = func->attrs.find("tp.unstage_shared");
    std::string mode = it == func->attrs.end() ? "" : it->second;
    if (mode == "false") return func;
    SharedLimited lim;
    lim.target = &target;
    lim.force = mode == "true";
    lim.visit(func->body);  // decided on the kernel as written: each rewrite frees some
    PrimFuncPtr f = func;
    for (bool changed = true; changed;) {  // each rewrite removes a tile op, so this ends
        TopLists t;
        t.eligible = lim.launches;
        t.func_uses.visit(f->body);
        GemmOperands g;
        g.visit(f->body);
        t.gemm_bufs = g.bufs;
        f = mutate_func(f, t);
        changed = t.changed;
    }
    if (f == func) return func;
    DropUnused d;
    return mutate_func(f, d);
}

}  // namespace tp::transform
