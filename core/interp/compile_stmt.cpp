// Statements of the interpreter. Every loop kind (serial, unrolled, T.Parallel, T.Pipelined,
// vectorized) runs in program order: TileLang's tile semantics treat a block as one
// sequential program over tiles, which is what the reference must reproduce.
#include <algorithm>

#include "interp/aliases.h"
#include "interp/program.h"
#include "interp/race_check.h"

namespace tp::interp {

namespace {

struct Seq : CStmt {
    std::vector<CStmtP> body;
    void exec(Frame& fr) const override {
        for (const auto& s : body) {
            s->exec(fr);
            if (fr.breaking) return;
        }
    }
};

struct Nop : CStmt {
    void exec(Frame&) const override {}
};

struct For : CStmt {
    VarSlot var;
    CExprP min, extent;
    CStmtP body;
    void exec(Frame& fr) const override {
        int64_t lo = min->i(fr), n = extent->i(fr);
        for (int64_t k = 0; k < n; ++k) {
            if (var.is_float) fr.fvars[static_cast<size_t>(var.index)] = static_cast<double>(lo + k);
            else fr.ivars[static_cast<size_t>(var.index)] = lo + k;
            body->exec(fr);
            if (fr.breaking) {
                fr.breaking = false;
                return;
            }
            fr.poll_watchdog(span);
        }
    }
};

struct While : CStmt {
    CExprP cond;
    CStmtP body;
    void exec(Frame& fr) const override {
        while (cond->i(fr)) {
            body->exec(fr);
            if (fr.breaking) {
                fr.breaking = false;
                return;
            }
            fr.poll_watchdog(span);
        }
    }
};

struct If : CStmt {
    CExprP cond;
    CStmtP then_s, else_s;
    void exec(Frame& fr) const override {
        if (cond->i(fr)) then_s->exec(fr);
        else if (else_s) else_s->exec(fr);
    }
};

struct Let : CStmt {
    VarSlot var;
    CExprP value;
    CStmtP body;
    void exec(Frame& fr) const override {
        if (var.is_float) fr.fvars[static_cast<size_t>(var.index)] = value->f(fr);
        else fr.ivars[static_cast<size_t>(var.index)] = value->i(fr);
        body->exec(fr);
    }
};

struct Store : CStmt {
    const ir::BufferNode* buf;
    int slot;
    std::vector<CExprP> idx;
    CExprP value;
    void exec(Frame& fr) const override {
        int64_t ix[kMaxRank];
        int n = static_cast<int>(idx.size());
        for (int d = 0; d < n; ++d) ix[d] = idx[static_cast<size_t>(d)]->i(fr);
        BufView& v = fr.bufs[static_cast<size_t>(slot)];
        int64_t flat = checked_flat(fr, span, "write", *buf, v, ix, n);
        double x = buf->dtype.is_float() ? value->f(fr) : static_cast<double>(value->i(fr));
        store_value(v, flat, x, buf->dtype);
    }
};

// --check-races: a shared-memory store that tells the checker who writes which element, and
// whether the value changes.
struct CheckedStore : Store {
    void exec(Frame& fr) const override {
        if (!fr.races) return Store::exec(fr);
        int64_t ix[kMaxRank];
        int n = static_cast<int>(idx.size());
        for (int d = 0; d < n; ++d) ix[d] = idx[static_cast<size_t>(d)]->i(fr);
        BufView& v = fr.bufs[static_cast<size_t>(slot)];
        int64_t flat = checked_flat(fr, span, "write", *buf, v, ix, n);
        double x = buf->dtype.is_float() ? value->f(fr) : static_cast<double>(value->i(fr));
        race_write(fr, slot, flat, &span, v.data[flat], round_value(x, buf->dtype));
        store_value(v, flat, x, buf->dtype);
    }
};

// --check-races: a T.Parallel loop. bind_threads flattens a nest of directly nested parallel
// loops row-major and deals iteration e to thread e % threads (tp_r * threads + tid), so each
// iteration's accesses are attributed to that thread; a parallel loop inside the body of
// another (not directly nested) runs serially in the thread that runs that body.
struct ParFor : For {
    int64_t threads = 1;
    bool nested = false;  // directly inside another parallel loop of the same nest
    void exec(Frame& fr) const override {
        if (!fr.races || (fr.par_index >= 0 && !nested)) return For::exec(fr);
        const int32_t saved_owner = fr.owner;
        const int64_t outer = nested ? fr.par_index : 0;
        int64_t lo = min->i(fr), n = extent->i(fr);
        for (int64_t k = 0; k < n; ++k) {
            if (var.is_float)
                fr.fvars[static_cast<size_t>(var.index)] = static_cast<double>(lo + k);
            else
                fr.ivars[static_cast<size_t>(var.index)] = lo + k;
            fr.par_index = outer * n + k;
            fr.owner = static_cast<int32_t>(fr.par_index % threads);
            body->exec(fr);
            if (fr.breaking) {
                fr.breaking = false;
                break;
            }
            fr.poll_watchdog(span);
        }
        fr.par_index = nested ? outer : -1;
        fr.owner = saved_owner;
    }
};

// --check-races: a tile op the lowering spreads over the block's threads; which thread takes
// which element is not computed, so its accesses conflict with any other thread's.
struct SpreadOp : CStmt {
    CStmtP inner;
    void exec(Frame& fr) const override {
        const int32_t saved = fr.owner;
        fr.owner = kSomeThread;
        inner->exec(fr);
        fr.owner = saved;
    }
};

// --check-races in a block run as one program: __syncthreads ends the barrier epoch.
struct EpochBarrier : CStmt {
    void exec(Frame& fr) const override {
        if (fr.races) fr.races->barrier();
    }
};

struct Eval : CStmt {
    CExprP value;
    void exec(Frame& fr) const override { (void)value->f(fr); }
};

// Thread mode: a block-wide statement. Every thread arrives, thread 0 runs it, every thread
// goes on after it; a barrier (__syncthreads) is the arrival alone. Inside a role the user split
// by hand, the role's threads arrive and its first thread runs it.
struct Collective : CStmt {
    CStmtP inner;
    bool barrier_only = false;
    ThreadRange range;
    void exec(Frame& fr) const override {
        if (!fr.fibers) return inner->exec(fr);
        const int64_t first = range.hi > range.lo ? range.lo : 0;
        fiber_barrier(fr, this, span, range.lo, range.hi);
        // The first thread resumes first after the barrier, before any thread runs past it.
        if (barrier_only && fr.races && fr.thread_rank == first) fr.races->barrier();
        if (barrier_only) return;
        if (fr.thread_rank == first) inner->exec(fr);
        fiber_barrier(fr, reinterpret_cast<const char*>(this) + 1, span, range.lo, range.hi);
    }
};

struct Break : CStmt {
    void exec(Frame& fr) const override { fr.breaking = true; }
};

// A block-local buffer: a fresh zeroed array each time the block reaches it (GPU memory would
// be uninitialised; zeros keep the reference deterministic), or filled with T.alloc_var's init.
struct Alloc : CStmt {
    const ir::BufferNode* buf;
    int slot;
    std::vector<CExprP> shape;
    CExprP init;
    CStmtP body;
    void exec(Frame& fr) const override {
        BufView& v = fr.bufs[static_cast<size_t>(slot)];
        // Thread mode: the block's buffers are thread 0's, which reaches each allocation first.
        if (fr.leader && fr.leader != &fr && buf->scope != ir::Scope::Local && buf->scope != ir::Scope::Var) {
            v = fr.leader->bufs[static_cast<size_t>(slot)];
            body->exec(fr);
            return;
        }
        v.rank = static_cast<int>(shape.size());
        v.size = 1;
        for (int d = 0; d < v.rank; ++d) {
            v.shape[d] = shape[static_cast<size_t>(d)]->i(fr);
            if (v.shape[d] < 0) v.shape[d] = 0;
            v.size *= v.shape[d];
        }
        double x = init ? (buf->dtype.is_float() ? init->f(fr) : static_cast<double>(init->i(fr))) : 0.0;
        auto& st = fr.local_storage[static_cast<size_t>(slot)];
        st.assign(static_cast<size_t>(v.size), round_value(x, buf->dtype));
        v.data = st.data();
        v.written = nullptr;
        v.global = false;
        if (fr.races && buf->scope == ir::Scope::Shared) fr.races->reset_buffer(slot, v.size);
        body->exec(fr);
    }
};

struct Launch : CStmt {
    std::vector<CExprP> grid;
    std::vector<VarSlot> block_vars, thread_vars;
    std::vector<int64_t> thread_extents;
    bool thread_mode = false;
    CStmtP body;
    void exec(Frame& fr) const override {
        if (fr.discover) {
            fr.grid.clear();
            for (const auto& g : grid) fr.grid.push_back(g->i(fr));
            return;
        }
        for (size_t d = 0; d < block_vars.size() && d < 3; ++d) fr.ivars[static_cast<size_t>(block_vars[d].index)] = fr.block[d];
        if (thread_mode) return run_block_threads(fr, *body, thread_vars, thread_extents);
        // Tile semantics: the block is one program; thread indices read as 0 (thread 0 is
        // also the thread TileLang prints buffers from).
        for (const auto& t : thread_vars) fr.ivars[static_cast<size_t>(t.index)] = 0;
        body->exec(fr);
    }
};

}  // namespace

CStmtP compile_stmt_inner(Program& p, const ir::Stmt& s);

static bool is_sync(const ir::Stmt& s) {
    auto* e = s->as<ir::EvaluateNode>();
    auto* c = e ? e->value->as<ir::CallNode>() : nullptr;
    return c && c->op == "__syncthreads";
}

static CStmtP compile_stmt_synced(Program& p, const ir::Stmt& s);

CStmtP compile_stmt(Program& p, const ir::Stmt& s) { return claim_aliases(p, s, compile_stmt_synced(p, s)); }

static CStmtP compile_stmt_synced(Program& p, const ir::Stmt& s) {
    if (!s || !p.thread_mode || p.block_wide_depth > 0) return compile_stmt_inner(p, s);
    const bool sync = is_sync(s);
    if (!sync && !block_wide(s)) return compile_stmt_inner(p, s);
    auto n = std::make_unique<Collective>();
    ++p.block_wide_depth;
    n->inner = compile_stmt_inner(p, s);
    --p.block_wide_depth;
    n->barrier_only = sync;
    n->range = p.range;
    n->span = s->span;
    return n;
}

CStmtP compile_stmt_inner(Program& p, const ir::Stmt& s) {
    if (!s) return std::make_unique<Nop>();
    if (CStmtP op = compile_tile_op(p, s)) {
        op->span = s->span;
        if (!p.check_races || !block_wide(s)) return op;
        auto n = std::make_unique<SpreadOp>();
        n->inner = std::move(op);
        n->span = s->span;
        return n;
    }
    CStmtP out;
    switch (s->kind) {
        case ir::NodeKind::SeqStmt: {
            auto n = std::make_unique<Seq>();
            for (const auto& c : s->as<ir::SeqStmtNode>()->seq) n->body.push_back(compile_stmt(p, c));
            out = std::move(n);
            break;
        }
        case ir::NodeKind::For: {
            auto* f = s->as<ir::ForNode>();
            const bool par = p.check_races && f->for_kind == ir::ForKind::Parallel;
            std::unique_ptr<For> n;
            if (par)
                n = std::make_unique<ParFor>();
            else
                n = std::make_unique<For>();
            n->var = p.slot_of(f->loop_var);
            n->min = compile_expr(p, f->min);
            n->extent = compile_expr(p, f->extent);
            n->body = compile_stmt(p, f->body);
            if (par) {
                static_cast<ParFor*>(n.get())->threads = std::max<int64_t>(p.role_threads ? p.role_threads : p.block_threads, 1);
                if (auto* inner = dynamic_cast<ParFor*>(n->body.get())) inner->nested = true;
            }
            out = std::move(n);
            break;
        }
        case ir::NodeKind::While: {
            auto* w = s->as<ir::WhileNode>();
            auto n = std::make_unique<While>();
            n->cond = compile_expr(p, w->cond);
            n->body = compile_stmt(p, w->body);
            out = std::move(n);
            break;
        }
        case ir::NodeKind::IfThenElse: {
            auto* i = s->as<ir::IfThenElseNode>();
            auto n = std::make_unique<If>();
            n->cond = compile_expr(p, i->cond);
            // Thread mode: a branch on an interval of the thread index is a role of its own.
            ThreadRange then_r{0, 0}, else_r{0, 0};
            const ThreadRange saved = p.range;
            const ThreadRange cur = p.range.hi > p.range.lo ? p.range : ThreadRange{0, p.block_threads};
            const bool role = p.thread_mode && p.block_wide_depth == 0 && thread_interval(i->cond, p.tid, cur, then_r, else_r);
            if (role) p.range = then_r;
            n->then_s = compile_stmt(p, i->then_case);
            if (role) p.range = else_r.lo >= 0 ? else_r : saved;
            if (i->else_case) n->else_s = compile_stmt(p, i->else_case);
            p.range = saved;
            out = std::move(n);
            break;
        }
        case ir::NodeKind::LetStmt: {
            auto* l = s->as<ir::LetStmtNode>();
            auto n = std::make_unique<Let>();
            n->var = p.slot_of(l->var);
            n->value = compile_expr(p, l->value);
            n->body = compile_stmt(p, l->body);
            out = std::move(n);
            break;
        }
        case ir::NodeKind::BufferStore: {
            auto* st = s->as<ir::BufferStoreNode>();
            std::unique_ptr<Store> n;
            if (p.check_races && st->buffer->scope == ir::Scope::Shared)
                n = std::make_unique<CheckedStore>();
            else
                n = std::make_unique<Store>();
            n->buf = st->buffer.get();
            n->slot = p.buffer_slot(st->buffer);
            TP_ICHECK(st->indices.size() <= static_cast<size_t>(kMaxRank), "buffer rank above 8");
            for (const auto& i : st->indices) n->idx.push_back(compile_expr(p, i));
            n->value = compile_expr(p, st->value);
            out = std::move(n);
            break;
        }
        case ir::NodeKind::Evaluate: {
            if (p.check_races && !p.thread_mode && is_sync(s)) {
                out = std::make_unique<EpochBarrier>();
                break;
            }
            auto n = std::make_unique<Eval>();
            n->value = compile_expr(p, s->as<ir::EvaluateNode>()->value);
            out = std::move(n);
            break;
        }
        case ir::NodeKind::Break: out = std::make_unique<Break>(); break;
        case ir::NodeKind::Allocate: {
            auto* a = s->as<ir::AllocateNode>();
            auto n = std::make_unique<Alloc>();
            n->buf = a->buffer.get();
            n->slot = p.buffer_slot(a->buffer);
            TP_ICHECK(a->buffer->shape.size() <= static_cast<size_t>(kMaxRank), "buffer rank above 8");
            for (const auto& d : a->buffer->shape) n->shape.push_back(compile_expr(p, d));
            if (a->init) n->init = compile_expr(p, a->init);
            n->body = compile_stmt(p, a->body);
            out = std::move(n);
            break;
        }
        case ir::NodeKind::KernelLaunch: {
            auto* k = s->as<ir::KernelLaunchNode>();
            auto n = std::make_unique<Launch>();
            for (const auto& g : k->grid) n->grid.push_back(compile_expr(p, g));
            for (const auto& v : k->block_vars) n->block_vars.push_back(p.slot_of(v));
            for (const auto& v : k->thread_vars) n->thread_vars.push_back(p.slot_of(v));
            p.block_vars = k->block_vars;
            p.thread_vars = k->thread_vars;
            p.block_threads = k->num_threads();
            p.tid = !k->thread_vars.empty() && !k->threads.empty() && k->threads[0] == p.block_threads ? k->thread_vars[0].get() : nullptr;
            n->thread_extents = k->threads;
            n->thread_mode = p.thread_mode;
            n->body = compile_stmt(p, k->body);
            out = std::move(n);
            break;
        }
        case ir::NodeKind::RoleBlock:
        case ir::NodeKind::BarrierOp:
            out = compile_role_or_barrier(p, s);
            break;
        case ir::NodeKind::SwizzleOp:  // remaps block order for L2 reuse only; results are the same
        case ir::NodeKind::LayoutAnnotationOp: out = std::make_unique<Nop>(); break;
        default: TP_ICHECK(false, std::string("the interpreter has no case for ") + ir::node_kind_name(s->kind));
    }
    out->span = s->span;
    return out;
}

}  // namespace tp::interp
