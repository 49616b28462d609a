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
#include <memory>

#include "interp/program.h"

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

}  // namespace tp::interp
