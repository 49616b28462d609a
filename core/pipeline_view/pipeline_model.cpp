// The pipeline view (tileplay/pipeline_view.h): compile to the lowered IR, find each
// T.Pipelined loop of the evaluated kernel, and walk every warp role's code in the lowered
// launch for the statements that come from that loop: before the lowered loop that carries its
// span and variable (prologue: prefetches, a peeled first iteration), in it (one iteration),
// after it (drains, a peeled last group). A statement belongs to the loop when its DSL line
// lies inside the loop's body, the lines the evaluator gave its statements.
#include <algorithm>
#include <map>
#include <set>

#include "ir/functor.h"
#include "pipeline_view/pipeline_events.h"
#include "tileplay/pipeline_view.h"

namespace tp {

using namespace ir;

const char* pipe_event_kind_name(PipeEventKind k) {
    switch (k) {
        case PipeEventKind::TmaLoad:
            return "tma_load";
        case PipeEventKind::CpAsync:
            return "cp_async";
        case PipeEventKind::Commit:
            return "commit";
        case PipeEventKind::WaitGroup:
            return "wait_group";
        case PipeEventKind::Acquire:
            return "acquire";
        case PipeEventKind::MbarWait:
            return "mbarrier_wait";
        case PipeEventKind::MbarArrive:
            return "mbarrier_arrive";
        case PipeEventKind::Release:
            return "release";
        case PipeEventKind::MmaIssue:
            return "wgmma_issue";
        case PipeEventKind::MmaWait:
            return "wgmma_wait";
        case PipeEventKind::Mma:
            return "mma";
        case PipeEventKind::Barrier:
            return "syncthreads";
        case PipeEventKind::NamedSync:
            return "named_barrier_sync";
        case PipeEventKind::NamedArrive:
            return "named_barrier_arrive";
        case PipeEventKind::Store:
            return "store";
        case PipeEventKind::Compute:
            return "compute";
        case PipeEventKind::Scalar:
            return "scalar";
    }
    return "?";
}

namespace {

// A T.Pipelined loop of the evaluated kernel and the DSL lines of its body.
struct DslLoop {
    const ForNode* node = nullptr;
    uint32_t lo = 0, hi = 0;
    int launch = 0;
    std::set<uint32_t> enclosing;  // lines of the statements around it (T.Kernel, outer loops)
};

struct Source {
    std::vector<DslLoop> loops;
    std::map<uint32_t, std::string> copy_tile;  // DSL line of a T.copy -> the tile it fills
};

Source scan_source(const PrimFunc& f) {
    struct Scan : IRVisitor {
        Source src;
        int launch = -1;
        std::vector<uint32_t> around;
        void visit_stmt(const Stmt& st) override {
            around.push_back(st->span.begin.line);
            IRVisitor::visit_stmt(st);
            around.pop_back();
        }
        void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
            ++launch;
            IRVisitor::visit_KernelLaunch(n, s);
        }
        void visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
            src.copy_tile[n.span.begin.line] = n.dst.buffer->name;
            IRVisitor::visit_CopyOp(n, s);
        }
        void visit_For(const ForNode& n, const Stmt& s) override {
            if (n.for_kind == ForKind::Pipelined) {
                struct Lines : IRVisitor {
                    uint32_t lo = UINT32_MAX, hi = 0;
                    void visit_stmt(const Stmt& st) override {
                        if (st->span.valid()) lo = std::min(lo, st->span.begin.line), hi = std::max(hi, st->span.begin.line);
                        IRVisitor::visit_stmt(st);
                    }
                } lines;
                lines.visit(n.body);
                DslLoop d{&n, std::min(lines.lo, n.span.begin.line), std::max(lines.hi, n.span.begin.line), std::max(launch, 0),
                          std::set<uint32_t>(around.begin(), around.end())};
                src.loops.push_back(d);
            }
            IRVisitor::visit_For(n, s);
        }
    } scan;
    scan.visit(f.body);
    return scan.src;
}

// One role's walk for one loop: statements of the loop before, in and after its lowered loop.
struct RoleWalk {
    const DslLoop& loop;
    const Source& src;
    PipeRole& role;
    std::vector<std::string> guards = {};
    bool found_main = false;

    // Right after the lowered loop, the passes' drains (the last wgmma wait and release, the final
    // cp.async wait) carry the line of an enclosing construct (the T.Kernel) or the loop's own.
    bool drain = false;

    bool inside(const Span& s) const {
        return s.valid() && ((s.begin.line >= loop.lo && s.begin.line <= loop.hi) || (drain && loop.enclosing.count(s.begin.line)));
    }
    std::vector<PipeEvent>& part(bool steady) { return steady ? role.steady : found_main ? role.epilogue : role.prologue; }

    void add(PipeEvent ev, bool steady) {
        std::string g;
        for (const auto& x : guards) g += (g.empty() ? "" : " and ") + x;
        ev.guard = g;
        if (ev.buffer.empty() && (ev.kind == PipeEventKind::Acquire || ev.kind == PipeEventKind::MbarWait || ev.kind == PipeEventKind::Release))
            if (auto it = src.copy_tile.find(ev.span.begin.line); it != src.copy_tile.end()) ev.buffer = it->second;
        if (!ev.buffer.empty() && ev.label.find(ev.buffer) == std::string::npos &&
            (ev.kind == PipeEventKind::Acquire || ev.kind == PipeEventKind::MbarWait || ev.kind == PipeEventKind::Release))
            ev.label += " (" + ev.buffer + ")";
        part(steady).push_back(std::move(ev));
    }

    void walk(const Stmt& s, bool steady) {
        if (!s) return;
        if (auto* q = s->as<SeqStmtNode>()) {
            for (const auto& x : q->seq) {
                const bool before = found_main;
                walk(x, steady);
                if (!before && found_main)
                    drain = true;  // the statements after the loop in its sequence
                else if (drain && x->span.valid() && x->span.begin.line > loop.hi)
                    drain = false;
            }
            drain = false;
        } else if (auto* a = s->as<AllocateNode>()) {
            walk(a->body, steady);
        } else if (auto* k = s->as<KernelLaunchNode>()) {
            walk(k->body, steady);
        } else if (auto* l = s->as<LetStmtNode>()) {
            if (steady || inside(s->span)) {
                PipeEvent ev;
                ev.kind = PipeEventKind::Scalar, ev.span = s->span, ev.label = l->var->name;
                ev.code = l->var->name + " = " + print(l->value);
                add(ev, steady);
            }
            walk(l->body, steady);
        } else if (auto* i = s->as<IfThenElseNode>()) {
            guards.push_back(print(i->cond));
            walk(i->then_case, steady);
            guards.back() = "not (" + guards.back() + ")";
            walk(i->else_case, steady);
            guards.pop_back();
        } else if (auto* f = s->as<ForNode>()) {
            walk_for(*f, s, steady);
        } else if (auto* w = s->as<WhileNode>()) {
            // Around the loop (a stream-K walk over tiles) or inside it, as a loop with a condition.
            const bool ours = steady || inside(s->span);
            if (ours) guards.push_back("while " + print(w->cond));
            walk(w->body, steady);
            if (ours) guards.pop_back();
        } else if (steady || inside(s->span)) {
            if (auto ev = pipeview::classify(s)) add(*ev, steady);
        }
    }

    void walk_for(const ForNode& f, const Stmt& s, bool steady) {
        const bool main = !steady && !found_main && f.span == loop.node->span && f.loop_var->name == loop.node->loop_var->name;
        if (main) {
            role.loop = "for " + f.loop_var->name + " in T." + for_kind_name(f.for_kind) + "(" + (is_zero(f.min) ? "" : print(f.min) + ", ") +
                        print(f.extent) + ")";
            walk(f.body, true);
            found_main = true;
            return;
        }
        const bool ours = steady || inside(s->span) || f.span == loop.node->span;
        if (ours) {
            if (auto ev = pipeview::classify(s)) return add(*ev, steady);
            guards.push_back("for " + f.loop_var->name + " in [" + print(f.min) + ", " + print(f.extent) + ")");
            walk(f.body, steady);
            guards.pop_back();
            return;
        }
        walk(f.body, steady);  // an enclosing loop (a persistent grid's work units)
    }

    static bool is_zero(const Expr& e) {
        auto* i = e ? e->as<IntImmNode>() : nullptr;
        return !e || (i && i->value == 0);
    }
};

void summarize(PipeRole& r) {
    for (const auto* part : {&r.prologue, &r.steady, &r.epilogue})
        for (const auto& e : *part) {
            if (!e.waits) continue;
            std::string w = e.label + " (line " + std::to_string(e.span.begin.line) + ")";
            if (std::find(r.waits_on.begin(), r.waits_on.end(), w) == r.waits_on.end()) r.waits_on.push_back(w);
        }
}

bool any_of_kind(const PipelineLoopView& v, PipeEventKind k) {
    for (const auto& r : v.roles)
        for (const auto* part : {&r.prologue, &r.steady, &r.epilogue})
            for (const auto& e : *part)
                if (e.kind == k) return true;
    return false;
}

// The slots of every tile an event of the loop names with a ring slot or stage, from the
// lowered allocation (its leading dimension).
void ring_buffers(PipelineLoopView& v, const PrimFunc& launch) {
    std::map<std::string, int64_t> slots;
    struct Allocs : IRVisitor {
        std::map<std::string, const BufferNode*> by_name;
        void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
            by_name[n.buffer->name] = n.buffer.get();
            IRVisitor::visit_Allocate(n, s);
        }
    } allocs;
    allocs.visit(launch.body);
    for (const auto& r : v.roles)
        for (const auto* part : {&r.prologue, &r.steady, &r.epilogue})
            for (const auto& e : *part) {
                auto it = allocs.by_name.find(e.buffer);
                if (e.slot.empty() || it == allocs.by_name.end() || it->second->shape.empty()) continue;
                if (auto* n = it->second->shape[0]->as<IntImmNode>(); n && !slots.count(e.buffer)) {
                    slots[e.buffer] = n->value;
                    v.buffers.push_back({e.buffer, n->value});
                }
            }
}

std::string scheme_of(const PipelineLoopView& v, bool ws) {
    int64_t lo = v.num_stages, hi = v.num_stages;
    if (!v.buffers.empty()) {
        lo = hi = v.buffers[0].depth;
        for (const auto& b : v.buffers) lo = std::min(lo, b.depth), hi = std::max(hi, b.depth);
    }
    const std::string S = lo == hi ? std::to_string(lo) : std::to_string(lo) + "- to " + std::to_string(hi);
    if (ws) {
        std::string s = "warp-specialised: the producer warpgroup issues TMA loads into " + S +
                        "-slot rings of shared tiles (one full and one empty mbarrier per slot); the consumers wait for a "
                        "slot to fill, run the body and release the slot";
        if (any_of_kind(v, PipeEventKind::MmaIssue)) s += "; wgmma groups run asynchronously until their wait_group";
        if (any_of_kind(v, PipeEventKind::NamedSync)) s += "; consumer warpgroups take turns at named barriers";
        return s;
    }
    bool prefetch = false;  // copies issued before the loop: the stages run ahead
    for (const auto& r : v.roles)
        for (const auto& e : r.prologue) prefetch |= e.kind == PipeEventKind::CpAsync;
    if (prefetch)
        return "cp.async multi-buffering over " + S +
               " stages: the prologue issues the first stages, each iteration waits for "
               "its stage (wait_group, then __syncthreads), issues the copy of a later iteration and computes";
    if (v.num_stages < 2) return "not pipelined (num_stages=" + std::to_string(v.num_stages) + "): each iteration runs as written";
    if (any_of_kind(v, PipeEventKind::CpAsync))
        return "not pipelined: each iteration issues its copies and waits for them; none is issued ahead (the notes may say why)";
    return "not pipelined: the loop has no global -> shared tile copy to issue ahead, so it runs as written";
}

std::string first_error(const CompileResult& r) {
    for (const auto& d : r.diagnostics)
        if (d.severity == Severity::Error) return d.message;
    return r.internal_error ? r.internal_error->what() : "the kernel did not compile";
}

// The roles of a lowered launch: the producer and consumers of a warp-specialised split, or
// the whole block.
void add_roles(PipelineLoopView& v, const DslLoop& d, const Source& src, const PrimFunc& launch) {
    struct Find : IRVisitor {
        const WarpRolesNode* roles = nullptr;
        int64_t threads = 0;
        void visit_WarpRoles(const WarpRolesNode& n, const Stmt&) override { roles = &n; }
        void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
            threads = n.num_threads();
            IRVisitor::visit_KernelLaunch(n, s);
        }
    } find;
    find.visit(launch.body);
    auto range = [](int64_t a, int64_t n) { return "threads " + std::to_string(a) + "-" + std::to_string(a + n - 1); };
    if (const WarpRolesNode* w = find.roles) {
        PipeRole p, c;
        p.name = "producer", c.name = "consumer";
        c.first_thread = 0, c.threads = w->all_consumer_threads(), c.regs = w->consumer_regs;
        p.first_thread = c.threads, p.threads = w->producer_threads, p.regs = w->producer_regs;
        p.who = "warpgroup " + std::to_string(p.first_thread / 128) + " (" + range(p.first_thread, p.threads) + ", setmaxnreg " +
                std::to_string(p.regs) + ")";
        c.who = std::to_string(c.threads / 128) + " warpgroup(s) (" + range(0, c.threads) + ", setmaxnreg " + std::to_string(c.regs) + ")" +
                (w->consumer_groups > 1 ? ", " + std::to_string(w->consumer_groups) + " consumer groups each a block's tile" : "");
        RoleWalk{d, src, p}.walk(w->producer, false);
        RoleWalk{d, src, c}.walk(w->consumer, false);
        v.roles = {p, c};
    } else {
        PipeRole b;
        b.name = "block", b.threads = find.threads;
        b.who = "all " + std::to_string(b.threads) + " threads (" + std::to_string((b.threads + 31) / 32) + " warps)";
        RoleWalk{d, src, b}.walk(launch.body, false);
        v.roles = {b};
    }
    for (auto& r : v.roles) summarize(r);
    ring_buffers(v, launch);
    v.scheme = scheme_of(v, find.roles != nullptr);
}

}  // namespace

PipelineReport inspect_pipeline(const CompileRequest& in) {
    PipelineReport rep;
    CompileRequest req = in;
    req.stop_after = Stage::Lowered;
    CompileResult r = compile(req);
    rep.file = r.file, rep.target = req.target, rep.kernel = r.kernel.factory, rep.diagnostics = r.diagnostics;
    if (!r.ok || !r.func || r.lowered_launches.empty()) {
        rep.error = first_error(r);
        return rep;
    }
    const Source src = scan_source(*r.func);
    for (const auto& d : src.loops) {
        PipelineLoopView v;
        v.span = d.node->span, v.var = d.node->loop_var->name, v.extent = print(d.node->extent);
        v.num_stages = d.node->num_stages, v.launch = d.launch;
        const size_t li = std::min(size_t(d.launch), r.lowered_launches.size() - 1);
        add_roles(v, d, src, *r.lowered_launches[li]);
        for (const auto& diag : r.diagnostics)
            if (diag.severity == Severity::Remark && diag.span.begin.line >= d.lo && diag.span.begin.line <= d.hi)
                v.notes.push_back("line " + std::to_string(diag.span.begin.line) + ": " + diag.message);
        rep.loops.push_back(std::move(v));
    }
    rep.ok = true;
    return rep;
}

}  // namespace tp
