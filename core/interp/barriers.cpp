// The interpreter's warp-group roles and mbarriers. A block runs as one program, so the roles
// of `with T.ws(i)` run in program order, one after the other (roles split by hand with
// `if tx < 128:` run as threads, threads.cpp: there a wait parks its thread until the phase
// completes, and each thread's arrive is one arrival). An mbarrier keeps its completed
// phases and the arrivals of its current phase in its buffer element (phase * 2^21 + arrived;
// both exact in a double). An arrive counts one arrival per thread that runs it: the role's
// threads inside `T.ws`, the block's outside. A wait for a phase that program order has not
// completed could only be released by code that runs later, so it is refused at its line with
// what the barrier holds, instead of hanging as the GPU would if no role ever arrived.
// Async copies (T.tma_copy) complete before the statement after them, so the bytes a phase
// expects (T.mbarrier_expect_tx) have always arrived when the interpreter checks a wait.
#include <string>

#include "interp/program.h"
#include "interp/race_check.h"

namespace tp::interp {

namespace {

constexpr int64_t kPhaseUnit = int64_t(1) << 21;  // arrive counts are below 2^20

struct Role : CStmt {
    CStmtP body;
    void exec(Frame& fr) const override { body->exec(fr); }
};

struct BarrierStmt : CStmt {
    ir::BarrierKind kind;
    const ir::BufferNode* buf;
    int slot;
    CExprP index, value;
    int64_t arrivals = 1;  // threads that run the statement

    double& word(Frame& fr, int64_t& i) const {
        BufView& v = fr.bufs[static_cast<size_t>(slot)];
        i = index->i(fr);
        return v.data[checked_flat(fr, span, "access", *buf, v, &i, 1)];
    }

    void exec(Frame& fr) const override {
        int64_t i = 0;
        double& w = word(fr, i);
        auto state = static_cast<int64_t>(w);
        int64_t phases = state / kPhaseUnit, arrived = state % kPhaseUnit;
        int64_t count = buf->arrive_counts[static_cast<size_t>(i)];
        switch (kind) {
            case ir::BarrierKind::ExpectTx:
                return;
            case ir::BarrierKind::Arrive:
            case ir::BarrierKind::ArriveExpectTx:
                // Arrivals past the count complete the phase and count towards the next one,
                // as the threads of a larger group would on the GPU.
                if (fr.races) fr.races->last_arrive[{slot, i}] = &span;
                arrived += arrivals;
                phases += arrived / count;
                arrived %= count;
                w = static_cast<double>(phases * kPhaseUnit + arrived);
                return;
            case ir::BarrierKind::Wait: {
                int64_t parity = value->i(fr) & 1;
                // The phase of this parity is done when it is the one before the current phase.
                // Thread mode: the thread parks until the other roles' arrivals complete the phase.
                if ((phases & 1) == parity && fr.fibers) {
                    fiber_wait_phase(fr, &w, parity, count, buf->name + "[" + std::to_string(i) + "]", span);
                    phases = static_cast<int64_t>(w) / kPhaseUnit;
                }
                if ((phases & 1) != parity) {
                    // Publishes the TMA loads that completed on it; every thread of a block
                    // without roles waits here after arriving, as at a barrier.
                    if (fr.races) {
                        // The phase this wait sees complete: the last one, or the one before
                        // the first (-1) for parity 1 on a fresh barrier.
                        race_async_waited(fr, slot, i, phases - 1);
                        fr.races->barrier();
                    }
                    return;
                }
                std::string held = mbarrier_held(w, count);
                throw_diag(fr, DiagKind::BarrierWaitNeverCompletes, span,
                           {buf->name + "[" + std::to_string(i) + "]", std::to_string(parity), block_text(fr), held});
            }
        }
    }
};

}  // namespace

bool mbarrier_phase_done(double word, int64_t parity) { return ((static_cast<int64_t>(word) / kPhaseUnit) & 1) != (parity & 1); }

std::string mbarrier_held(double word, int64_t count) {
    const auto state = static_cast<int64_t>(word);
    return "it has completed " + std::to_string(state / kPhaseUnit) + " phase(s) and holds " + std::to_string(state % kPhaseUnit) + " of the " +
           std::to_string(count) + " arrivals that complete the next";
}

int64_t mbarrier_phases(const Frame& fr, int slot, int64_t index) {
    const BufView& v = fr.bufs[static_cast<size_t>(slot)];
    if (!v.data || index < 0 || index >= v.size) return 0;
    return static_cast<int64_t>(v.data[index]) / kPhaseUnit;
}

void race_check_phases(Frame& fr) {
    for (const auto& [key, span] : fr.races->last_arrive) {
        const BufView& v = fr.bufs[static_cast<size_t>(key.first)];
        if (!v.data || key.second < 0 || key.second >= v.size) continue;
        const auto state = static_cast<int64_t>(v.data[key.second]);
        const int64_t arrived = state % kPhaseUnit;
        const ir::BufferNode& buf = *fr.prog->buffers[static_cast<size_t>(key.first)].buffer;
        const int64_t count = buf.arrive_counts[static_cast<size_t>(key.second)];
        if (arrived != 0) race_phase_incomplete(fr, buf, key.second, arrived, count, *span);
    }
}

CStmtP compile_role_or_barrier(Program& p, const ir::Stmt& s) {
    if (auto* r = s->as<ir::RoleBlockNode>()) {
        auto n = std::make_unique<Role>();
        int64_t saved = p.role_threads;
        p.role_threads = r->num_threads();
        n->body = compile_stmt(p, r->body);
        p.role_threads = saved;
        return n;
    }
    auto* b = s->as<ir::BarrierOpNode>();
    if (!b) return nullptr;
    auto n = std::make_unique<BarrierStmt>();
    n->kind = b->barrier_kind;
    n->buf = b->barrier.get();
    n->slot = p.buffer_slot(b->barrier);
    n->index = compile_expr(p, b->index);
    if (b->value) n->value = compile_expr(p, b->value);
    // Thread mode: every thread that runs an arrive is one arrival of its own.
    n->arrivals = p.thread_mode && p.block_wide_depth == 0 ? 1 : p.role_threads ? p.role_threads : p.block_threads;
    return n;
}

}  // namespace tp::interp
