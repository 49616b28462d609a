// Thread mode: a kernel written at thread level (it reads threadIdx through
// T.get_thread_binding outside any tile op) runs each block as its threads, one fiber per
// thread, so per-thread values, shared-memory exchanges and reductions across threads
// compute what the GPU computes. Tile operations and T.Parallel loops stay block-wide: every
// thread arrives at them, thread 0 runs them once, and every thread goes on after them;
// __syncthreads is a barrier of the fibers. Shared and fragment buffers are the block's
// (thread 0's allocation), local ones each thread's own. Threads that reach different
// barriers or tile ops stop the run with a located error rather than a silent wrong result.
// Roles the user splits by hand (`if tx < 128:` ... `else:` with mbarriers between them) run
// concurrently: a tile op inside a branch on an interval of the thread index is the role's,
// whose threads all arrive and whose first thread runs it; an mbarrier wait parks its thread
// until the arrivals of the other roles complete the phase, so a producer and its consumers
// hand tiles back and forth as on the GPU. A block whose threads all wait with no phase that
// can complete is a deadlock, reported at the wait.
#include <ucontext.h>

#include <algorithm>
#include <exception>
#include <map>
#include <optional>
#include <memory>
#include <set>
#include <variant>

#include "interp/program.h"
#include "ir/functor.h"

namespace tp::interp {

namespace {

constexpr size_t kFiberStack = 256 * 1024;

struct Aborted {};  // unwinds a suspended fiber when the block's run ends early

struct Fiber {
    ucontext_t ctx;
    std::unique_ptr<char[]> stack;  // default-initialised: pages are committed as they are used
    Frame frame;
    const void* at = nullptr;  // the barrier it waits at; null while it runs
    Span at_span;
    int64_t lo = 0, hi = 0;  // the threads that meet at `at` (a role's or the block's)
    // An mbarrier wait: the word it polls (null at a barrier of threads), and what it waits for.
    const double* word = nullptr;
    int64_t parity = 0, count = 0;
    std::string what;
    bool done = false;
    std::exception_ptr error;
};

}  // namespace

struct Fibers {
    std::vector<Fiber> f;
    std::vector<double> exchange;  // one slot per thread, for warp shuffles
    ucontext_t main;
    size_t cur = 0;
    const CStmt* body = nullptr;
    bool abort = false;
};

namespace {

void fiber_entry(unsigned lo, unsigned hi) {
    auto* fs = reinterpret_cast<Fibers*>((static_cast<uintptr_t>(hi) << 32) | static_cast<uintptr_t>(lo));
    Fiber& me = fs->f[fs->cur];
    try {
        fs->body->exec(me.frame);
    } catch (const Aborted&) {
    } catch (...) {
        me.error = std::current_exception();
    }
    me.done = true;
    me.at = nullptr;
}

void resume(Fibers& fs, size_t t) {
    fs.cur = t;
    swapcontext(&fs.main, &fs.f[t].ctx);
}

// Ends the block's run: every suspended fiber unwinds (so nothing on its stack leaks).
void abort_all(Fibers& fs) {
    fs.abort = true;
    for (size_t t = 0; t < fs.f.size(); ++t)
        if (!fs.f[t].done) resume(fs, t);
}

}  // namespace

bool block_wide(const ir::Stmt& s) {
    std::vector<const ir::BufferNode*> bufs;
    if (auto* c = s->as<ir::CopyOpNode>())
        bufs = {c->src.buffer.get(), c->dst.buffer.get()};
    else if (auto* g = s->as<ir::GemmOpNode>())
        bufs = {g->A.buffer.get(), g->B.buffer.get(), g->C.buffer.get()};
    else if (auto* f = s->as<ir::FillOpNode>())
        bufs = {f->dst.buffer.get()};
    else if (auto* r = s->as<ir::ReduceOpNode>())
        bufs = {r->src.get(), r->dst.get()};
    else if (auto* a = s->as<ir::AtomicAddOpNode>()) {
        auto* src = std::get_if<ir::BufferRegion>(&a->src);
        if (!src) return false;  // one element added by each thread that runs it
        bufs = {a->dst.buffer.get(), src->buffer.get()};
    } else if (auto* p = s->as<ir::PrintOpNode>()) {
        if (auto* b = std::get_if<ir::Buffer>(&p->value)) bufs = {b->get()};
    } else if (auto* f = s->as<ir::ForNode>()) {
        return f->for_kind == ir::ForKind::Parallel;
    } else {
        return false;
    }
    // A tile op on a thread's own local buffers is that thread's.
    for (const auto* b : bufs)
        if (b->scope == ir::Scope::Local || b->scope == ir::Scope::Var) return false;
    return true;
}

void fiber_barrier(Frame& fr, const void* at, Span span, int64_t lo, int64_t hi) {
    Fibers& fs = *fr.fibers;
    Fiber& me = fs.f[static_cast<size_t>(fr.thread_rank)];
    me.at = at;
    me.at_span = span;
    me.lo = lo;
    me.hi = hi > lo ? hi : static_cast<int64_t>(fs.f.size());
    me.word = nullptr;
    swapcontext(&me.ctx, &fs.main);
    if (fs.abort) throw Aborted{};
}

void fiber_wait_phase(Frame& fr, const double* word, int64_t parity, int64_t count, std::string what, Span span) {
    Fibers& fs = *fr.fibers;
    Fiber& me = fs.f[static_cast<size_t>(fr.thread_rank)];
    me.at = word;
    me.at_span = span;
    me.word = word;
    me.parity = parity;
    me.count = count;
    me.what = std::move(what);
    swapcontext(&me.ctx, &fs.main);
    me.word = nullptr;
    if (fs.abort) throw Aborted{};
}

double warp_exchange(Frame& fr, double v, int64_t lane, int64_t width, const void* key, Span span) {
    Fibers& fs = *fr.fibers;
    const int64_t n = static_cast<int64_t>(fs.f.size()), me = fr.thread_rank;
    if (fs.exchange.size() < fs.f.size()) fs.exchange.resize(fs.f.size());
    fs.exchange[static_cast<size_t>(me)] = v;
    fiber_barrier(fr, key, span);
    const int64_t w = width >= 1 && width <= 32 ? width : 32;
    const int64_t base = me - (me % 32) % w;
    const int64_t src = base + ((lane % w) + w) % w;
    const double r = src < n ? fs.exchange[static_cast<size_t>(src)] : v;
    fiber_barrier(fr, static_cast<const char*>(key) + 1, span);  // every lane has read before the next write
    return r;
}

namespace {

// Lets go every fiber whose wait is over: the threads of a barrier once all of its group wait
// there, an mbarrier wait once its phase completed. False when every fiber has finished; a
// block where some wait and none can go on is a deadlock (or threads that diverged), reported
// at a wait.
bool release_waiting(Fibers& fs) {
    std::map<const void*, int64_t> met;  // threads waiting at each barrier of threads
    bool any = false, moved = false;
    for (const auto& fb : fs.f)
        if (!fb.done) {
            any = true;
            if (!fb.word) ++met[fb.at];
        }
    if (!any) return false;
    for (auto& fb : fs.f) {
        if (fb.done) continue;
        const bool go = fb.word ? mbarrier_phase_done(*fb.word, fb.parity) : met[fb.at] == fb.hi - fb.lo;
        if (go) {
            fb.at = nullptr;
            moved = true;
        }
    }
    if (moved) return true;
    const Fiber* wait = nullptr;
    for (const auto& fb : fs.f)
        if (!fb.done && fb.word && !wait) wait = &fb;
    if (wait) {
        Frame& fr = fs.f[static_cast<size_t>(wait - fs.f.data())].frame;
        const std::string what = wait->what, held = mbarrier_held(*wait->word, wait->count);
        const Span at = wait->at_span;
        const int64_t parity = wait->parity;
        abort_all(fs);
        throw_diag(fr, DiagKind::MbarrierDeadlock, at, {what, std::to_string(parity), block_text(fr), held});
    }
    // Threads wait at barriers of threads that some of their group never reach.
    const Fiber* waiting = nullptr;
    const Fiber* other = nullptr;
    for (const auto& fb : fs.f) {
        if (fb.done) continue;
        if (!waiting)
            waiting = &fb;
        else if (fb.at != waiting->at && !other)
            other = &fb;
    }
    const size_t w = static_cast<size_t>(waiting - fs.f.data());
    const std::string what =
        other ? "thread " + std::to_string(other - fs.f.data()) + " waits at another one (line " + std::to_string(other->at_span.begin.line) + ")"
              : "some threads have finished the kernel";
    Frame& fr = fs.f[w].frame;
    const Span at = waiting->at_span;
    abort_all(fs);
    throw_diag(fr, DiagKind::ThreadsDiverge, at, {std::to_string(w), what});
}

}  // namespace

void run_block_threads(Frame& fr, const CStmt& body, const std::vector<VarSlot>& thread_vars, const std::vector<int64_t>& extents) {
    int64_t n = 1;
    for (int64_t e : extents) n *= e;
    // The worker keeps its fibers (and their stacks) from block to block.
    if (!fr.fiber_pool) fr.fiber_pool = std::make_shared<Fibers>();
    Fibers& fs = *fr.fiber_pool;
    fs.f.resize(static_cast<size_t>(n));
    fs.body = &body;
    fs.abort = false;
    auto self = reinterpret_cast<uintptr_t>(&fs);
    for (int64_t t = 0; t < n; ++t) {
        Fiber& fb = fs.f[static_cast<size_t>(t)];
        Frame& f = fb.frame;
        f.prog = fr.prog;
        f.ivars = fr.ivars;
        f.fvars = fr.fvars;
        f.bufs = fr.bufs;
        f.local_storage.resize(fr.local_storage.size());
        std::copy(fr.block, fr.block + 3, f.block);
        f.expired = fr.expired;
        f.cancel = fr.cancel;
        f.watchdog_s = fr.watchdog_s;
        f.breaking = false;
        f.prints.clear();
        f.fibers = &fs;
        f.thread_rank = t;
        f.races = fr.races;
        f.owner = static_cast<int32_t>(t);
        f.par_index = -1;
        f.leader = &fs.f[0].frame;
        int64_t r = t;
        for (size_t d = 0; d < thread_vars.size(); ++d) {
            int64_t e = d < extents.size() ? extents[d] : 1;
            f.ivars[static_cast<size_t>(thread_vars[d].index)] = r % e;
            r /= e;
        }
        if (!fb.stack) fb.stack.reset(new char[kFiberStack]);
        fb.at = nullptr;
        fb.done = false;
        fb.error = nullptr;
        getcontext(&fb.ctx);
        fb.ctx.uc_stack.ss_sp = fb.stack.get();
        fb.ctx.uc_stack.ss_size = kFiberStack;
        fb.ctx.uc_link = &fs.main;
        makecontext(&fb.ctx, reinterpret_cast<void (*)()>(fiber_entry), 2, static_cast<unsigned>(self & 0xffffffffu),
                    static_cast<unsigned>(self >> 32));
    }
    for (;;) {
        for (size_t t = 0; t < fs.f.size(); ++t)
            if (!fs.f[t].done && !fs.f[t].at) resume(fs, t);
        // Every fiber now waits at a barrier or an mbarrier phase, or has finished.
        for (auto& fb : fs.f)
            if (fb.error) {
                std::exception_ptr e = fb.error;
                abort_all(fs);
                std::rethrow_exception(e);
            }
        if (!release_waiting(fs)) break;
    }
    for (auto& fb : fs.f) fr.prints += fb.frame.prints;
}

namespace {

// Narrows [lo, hi) to the thread indices `cond` admits when it compares `tid` with constants
// (`tx < c`, `c <= tx`, `tx == c`) or conjoins such tests; false for any other condition.
bool bound_of(const ir::Expr& cond, const ir::VarNode* tid, int64_t& lo, int64_t& hi) {
    auto* b = cond ? cond->as<ir::BinaryNode>() : nullptr;
    if (!b) return false;
    if (b->op == ir::BinaryOp::And) return bound_of(b->a, tid, lo, hi) && bound_of(b->b, tid, lo, hi);
    ir::BinaryOp op = b->op;
    std::optional<int64_t> c;
    if (b->a.get() == tid) {
        c = ir::as_const_int(b->b);
    } else if (b->b.get() == tid) {
        c = ir::as_const_int(b->a);
        // `c < tx` is `tx > c`
        static const std::pair<ir::BinaryOp, ir::BinaryOp> flip[] = {{ir::BinaryOp::LT, ir::BinaryOp::GT},
                                                                     {ir::BinaryOp::LE, ir::BinaryOp::GE},
                                                                     {ir::BinaryOp::GT, ir::BinaryOp::LT},
                                                                     {ir::BinaryOp::GE, ir::BinaryOp::LE}};
        for (auto [from, to] : flip)
            if (op == from) {
                op = to;
                break;
            }
    }
    if (!c) return false;
    switch (op) {
        case ir::BinaryOp::LT:
            hi = std::min(hi, *c);
            return true;
        case ir::BinaryOp::LE:
            hi = std::min(hi, *c + 1);
            return true;
        case ir::BinaryOp::GT:
            lo = std::max(lo, *c + 1);
            return true;
        case ir::BinaryOp::GE:
            lo = std::max(lo, *c);
            return true;
        case ir::BinaryOp::EQ:
            lo = std::max(lo, *c);
            hi = std::min(hi, *c + 1);
            return true;
        default:
            return false;
    }
}

}  // namespace

bool thread_interval(const ir::Expr& cond, const ir::VarNode* tid, ThreadRange cur, ThreadRange& then_r, ThreadRange& else_r) {
    int64_t lo = cur.lo, hi = cur.hi;
    if (!tid || !bound_of(cond, tid, lo, hi)) return false;
    then_r = {lo, std::max(lo, hi)};
    // The else branch is an interval when the then branch takes one end of the current one.
    else_r = {-1, -1};
    if (then_r.lo <= cur.lo)
        else_r = {std::max(cur.lo, then_r.hi), cur.hi};
    else if (then_r.hi >= cur.hi)
        else_r = {cur.lo, std::min(cur.hi, then_r.lo)};
    return true;
}

namespace {

// What thread_level and hand_split_roles read off a kernel.
struct Scan : ir::IRVisitor {
    std::set<const ir::VarNode*> tainted;  // thread indices and lets computed from them
    bool reads = false, blocked = false;
    int divergent = 0;  // depth of control flow that depends on the thread index
    // A one-dimensional block's thread index, and the interval of it the code at hand runs
    // on (a role the user split by hand); whether a role holds a tile op or an mbarrier wait.
    const ir::VarNode* tid = nullptr;
    ThreadRange range;
    bool roles = false, barriers = false;
    bool reads_thread(const ir::Expr& e) {
        struct R : ir::IRVisitor {
            const std::set<const ir::VarNode*>* t;
            bool hit = false;
            void visit_Var(const ir::VarNode& n, const ir::Expr&) override { hit |= t->count(&n) > 0; }
        } r;
        r.t = &tainted;
        if (e) r.visit(e);
        return r.hit;
    }
    int64_t block = 0;
    bool in_role() const { return tid && (range.lo > 0 || range.hi < block); }
    void visit_KernelLaunch(const ir::KernelLaunchNode& n, const ir::Stmt& s) override {
        for (const auto& v : n.thread_vars) tainted.insert(v.get());
        block = n.num_threads();
        if (!n.thread_vars.empty() && !n.threads.empty() && n.threads[0] == block) tid = n.thread_vars[0].get();
        range = {0, block};
        ir::IRVisitor::visit_KernelLaunch(n, s);
    }
    void visit_Var(const ir::VarNode& n, const ir::Expr&) override { reads |= tainted.count(&n) > 0; }
    void visit_LetStmt(const ir::LetStmtNode& n, const ir::Stmt& s) override {
        if (reads_thread(n.value)) tainted.insert(n.var.get());
        ir::IRVisitor::visit_LetStmt(n, s);
    }
    void collective() {
        blocked |= divergent > 0;
        roles |= in_role();
    }
    void visit_IfThenElse(const ir::IfThenElseNode& n, const ir::Stmt& s) override {
        ThreadRange then_r, else_r;
        if (divergent == 0 && reads_thread(n.cond) && thread_interval(n.cond, tid, range, then_r, else_r)) {
            reads = true;
            const ThreadRange saved = range;
            range = then_r;
            visit_stmt(n.then_case);
            range = else_r;
            const bool whole = else_r.lo >= 0;
            divergent += !whole;
            if (n.else_case) visit_stmt(n.else_case);
            divergent -= !whole;
            range = saved;
            return;
        }
        const bool d = reads_thread(n.cond);
        divergent += d;
        ir::IRVisitor::visit_IfThenElse(n, s);
        divergent -= d;
    }
    void visit_While(const ir::WhileNode& n, const ir::Stmt& s) override {
        const bool d = reads_thread(n.cond);
        divergent += d;
        ir::IRVisitor::visit_While(n, s);
        divergent -= d;
    }
    void visit_For(const ir::ForNode& n, const ir::Stmt& s) override {
        if (n.for_kind == ir::ForKind::Parallel) return ir::IRVisitor::visit_For(n, s);  // block-wide (visit_stmt)
        const bool d = reads_thread(n.min) || reads_thread(n.extent);
        divergent += d;
        ir::IRVisitor::visit_For(n, s);
        divergent -= d;
    }
    void visit_RoleBlock(const ir::RoleBlockNode& n, const ir::Stmt& s) override {
        blocked = true;  // warp-group roles keep their own program-order model
        ir::IRVisitor::visit_RoleBlock(n, s);
    }
    void visit_BarrierOp(const ir::BarrierOpNode& n, const ir::Stmt& s) override {
        // mbarriers keep the program-order model unless roles split by hand use them.
        barriers = true;
        roles |= in_role();
        ir::IRVisitor::visit_BarrierOp(n, s);
    }
    void visit_Call(const ir::CallNode& n, const ir::Expr& e) override {
        blocked |= n.op == "named_barrier";  // a barrier of some threads: no fiber model of it
        if (n.op == "__syncthreads") collective();
        if (n.op == "warp_shuffle") {  // an exchange between threads: only threads can run it
            reads = true;
            collective();
        }
        ir::IRVisitor::visit_Call(n, e);
    }
    void visit_stmt(const ir::Stmt& s) override {
        if (block_wide(s)) collective();
        ir::IRVisitor::visit_stmt(s);
    }
};

}  // namespace

bool thread_level(const ir::PrimFunc& f) {
    Scan scan;
    scan.visit(f.body);
    return scan.reads && !scan.blocked && (!scan.barriers || scan.roles);
}

bool hand_split_roles(const ir::PrimFunc& f) {
    Scan scan;
    scan.visit(f.body);
    return scan.reads && !scan.blocked && scan.roles;
}

}  // namespace tp::interp
