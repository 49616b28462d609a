// The fibers of thread-level kernels (block_threads.h). A worker thread keeps one team (its
// fibers' stacks, the block's shared area) from block to block. The switch saves only the
// callee-saved registers: a fiber leaves only through tp_jit_barrier, tp_jit_shuffle or its end,
// all ordinary calls, and the generated code never changes the FP control state. ucontext's
// swapcontext would also save the signal mask with a system call at every switch, which a
// block of 256 threads meeting 10 barriers does 5000 times.
#include "jit/block_threads.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace tp::jit {
namespace {

constexpr size_t kStackFrame = 256 * 1024;  // the interpreter's fiber stack; the frame's locals come on top

struct Fiber {
    void* sp = nullptr;  // saved stack pointer while switched out
    char* map = nullptr;
    size_t map_size = 0;
    State state;
    std::string prints;
    int64_t at = -1;  // the barrier key it waits at; -1 while it runs
    bool done = false;
};

struct Team {
    std::vector<Fiber> f;
    std::vector<double> exchange;  // one slot per thread, for warp shuffles
    void* main_sp = nullptr;
    size_t cur = 0;
    const Kernel* k = nullptr;
    const Ctx* ctx = nullptr;
    int64_t block[3] = {0, 0, 0};
    uint8_t* shared = nullptr;
    size_t shared_size = 0;
    ~Team() {
        for (auto& fb : f)
            if (fb.map) munmap(fb.map, fb.map_size);
        std::free(shared);
    }
};

thread_local Team team;

}  // namespace
}  // namespace tp::jit

#if defined(__x86_64__)
// tp_jit_fiber_switch(save, to): pushes the callee-saved registers, stores the stack pointer in
// *save, loads `to` and pops the registers saved there. A new fiber's stack holds zeros for them,
// its argument in r12, its entry in r13 and tp_jit_fiber_start as the return address, which calls
// the entry with the stack 16-byte aligned.
extern "C" void tp_jit_fiber_switch(void** save, void* to);
extern "C" void tp_jit_fiber_start();
asm(R"(
    .text
    .p2align 4
    .globl tp_jit_fiber_switch
    .hidden tp_jit_fiber_switch
    .type tp_jit_fiber_switch,@function
tp_jit_fiber_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size tp_jit_fiber_switch, .-tp_jit_fiber_switch
    .p2align 4
    .globl tp_jit_fiber_start
    .hidden tp_jit_fiber_start
    .type tp_jit_fiber_start,@function
tp_jit_fiber_start:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size tp_jit_fiber_start, .-tp_jit_fiber_start
)");
#endif

namespace tp::jit {
namespace {

void switch_to(void** save, void* to) {
#if defined(__x86_64__)
    tp_jit_fiber_switch(save, to);
#else
    (void)save, (void)to;
    std::abort();  // block_threads_supported() is false: the emitter rejects thread-level kernels
#endif
}

[[noreturn]] void fiber_main(Team* t) {
    Fiber& me = t->f[t->cur];
    t->k->block(t->ctx, &me.state, t->block[0], t->block[1], t->block[2]);
    me.done = true;
    me.at = -1;
    switch_to(&me.sp, t->main_sp);
    __builtin_unreachable();  // a finished fiber is never resumed
}

// A stack of `size` bytes above a guard page (an overflow faults instead of writing elsewhere).
bool map_stack(Fiber& fb, size_t size) {
    if (fb.map && fb.map_size == size) return true;
    if (fb.map) munmap(fb.map, fb.map_size);
    fb.map = nullptr;
    void* m = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    mprotect(m, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE);
    fb.map = static_cast<char*>(m);
    fb.map_size = size;
    return true;
}

void start(Team& t, Fiber& fb) {
    const auto top = reinterpret_cast<uintptr_t>(fb.map + fb.map_size) & ~uintptr_t{15};
    // After the six pops and the return, the stack pointer is top - 16: aligned for the call.
    auto** sp = reinterpret_cast<void**>(top - 72);
    sp[0] = sp[1] = nullptr;                       // r15, r14
    sp[2] = reinterpret_cast<void*>(&fiber_main);  // r13
    sp[3] = &t;                                    // r12
    sp[4] = sp[5] = nullptr;                       // rbx, rbp
#if defined(__x86_64__)
    sp[6] = reinterpret_cast<void*>(&tp_jit_fiber_start);
#endif
    fb.sp = sp;
}

void resume(Team& t, size_t i) {
    t.cur = i;
    switch_to(&t.main_sp, t.f[i].sp);
}

// Sets up the team's fibers for one block; false when memory runs out.
bool prepare(Team& t, const Kernel& k, const Ctx* ctx, const State& st, int64_t bx, int64_t by, int64_t bz) {
    const auto n = static_cast<size_t>(k.threads);
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t stack = (kStackFrame + static_cast<size_t>(k.stack_bytes) + page - 1) / page * page + page;
    if (t.f.size() < n) t.f.resize(n);
    const auto need = static_cast<size_t>((k.shared_bytes + 63) / 64 * 64);
    if (t.shared_size < need) {
        std::free(t.shared);
        t.shared = static_cast<uint8_t*>(std::aligned_alloc(64, need));
        t.shared_size = t.shared ? need : 0;
        if (!t.shared) return false;
    }
    t.exchange.resize(n);
    t.k = &k, t.ctx = ctx, t.block[0] = bx, t.block[1] = by, t.block[2] = bz;
    for (size_t i = 0; i < n; ++i) {
        Fiber& fb = t.f[i];
        if (!map_stack(fb, stack)) return false;
        fb.prints.clear();
        fb.state = State{};
        fb.state.stop = st.stop;
        fb.state.prints = st.prints ? &fb.prints : nullptr;
        fb.state.rank = static_cast<int64_t>(i);
        fb.state.shared = t.shared;
        fb.state.team = &t;
        fb.at = -1;
        fb.done = false;
        start(t, fb);
    }
    return true;
}

}  // namespace

bool block_threads_supported() {
#if defined(__x86_64__)
    return true;
#else
    return false;
#endif
}

void run_block_threads(const Kernel& k, const Ctx* ctx, State& st, int64_t bx, int64_t by, int64_t bz) {
    Team& t = team;
    if (!prepare(t, k, ctx, st, bx, by, bz)) {
        st.fault = 1;  // the interpreter runs it then
        return;
    }
    const auto n = static_cast<size_t>(k.threads);
    // The interpreter's schedule: every thread runs in rank order until it waits or ends; then
    // all must wait at one barrier (or all have ended), and the round starts again.
    for (;;) {
        for (size_t i = 0; i < n; ++i)
            if (!t.f[i].done && t.f[i].at < 0) resume(t, i);
        for (size_t i = 0; i < n; ++i)
            if (t.f[i].state.site >= 0) {  // stopped at a poll (watchdog, cancel): the block ends there
                st.site = t.f[i].state.site;
                return;
            }
        const Fiber* waiting = nullptr;
        bool diverged = false;
        for (size_t i = 0; i < n; ++i) {
            const Fiber& fb = t.f[i];
            if (fb.done)
                diverged |= true;
            else if (!waiting)
                waiting = &fb;
            else
                diverged |= fb.at != waiting->at;
        }
        if (!waiting) break;
        if (diverged) {  // the suspended fibers are dropped; the next block starts them afresh
            st.fault = 1;
            return;
        }
        for (size_t i = 0; i < n; ++i) t.f[i].at = -1;
    }
    for (size_t i = 0; i < n; ++i) {
        st.fault |= t.f[i].state.fault;
        if (st.prints) *st.prints += t.f[i].prints;
    }
}

}  // namespace tp::jit

extern "C" void tp_jit_barrier(tp::jit::State* st, int64_t key) {
    auto& t = *static_cast<tp::jit::Team*>(st->team);
    tp::jit::Fiber& me = t.f[static_cast<size_t>(st->rank)];
    me.at = key;
    tp::jit::switch_to(&me.sp, t.main_sp);
}

// The interpreter's warp_exchange: post, wait, read lane `lane` of this thread's segment of
// `width` lanes (the posting thread's own value past the block's last thread), wait again so
// every lane has read before the next shuffle writes.
extern "C" double tp_jit_shuffle(tp::jit::State* st, double v, int64_t lane, int64_t width, int64_t key) {
    auto& t = *static_cast<tp::jit::Team*>(st->team);
    const auto n = static_cast<int64_t>(t.k->threads);
    const int64_t me = st->rank;
    t.exchange[static_cast<size_t>(me)] = v;
    tp_jit_barrier(st, key);
    const int64_t w = width >= 1 && width <= 32 ? width : 32;
    const int64_t base = me - (me % 32) % w;
    const int64_t src = base + ((lane % w) + w) % w;
    const double r = src < n ? t.exchange[static_cast<size_t>(src)] : v;
    tp_jit_barrier(st, key + 1);
    return r;
}
