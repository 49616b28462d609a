// Statement -> pipeline event (see pipeline_events.h). The runtime helpers the passes emit
// (tp::ring_acquire, tp::mbar_wait, tp::cp_async_wait<N>...) are named in one table here, each
// with what it does to the pipeline; a template the table does not know is Compute.
#include "pipeline_view/pipeline_events.h"

#include <cstring>

#include "ir/functor.h"

namespace tp::pipeview {

using namespace ir;

namespace {

struct Helper {
    const char* prefix;  // callee name, or its start for templates ("tp::cp_async_wait<")
    PipeEventKind kind;
    const char* label;
    bool waits, async;
};

// The helpers of codegen/cuda/runtime that shape a pipeline. Order matters where one name
// starts another ("tp::ring_release_generic" is a release too).
const Helper kHelpers[] = {
    {"tp::ring_acquire", PipeEventKind::Acquire, "acquire slot (wait empty mbarrier, arm full)", true, false},
    {"tp::tma_load", PipeEventKind::TmaLoad, "TMA load", false, true},
    {"tp::mbar_wait", PipeEventKind::MbarWait, "wait full mbarrier", true, false},
    {"tp::ring_release", PipeEventKind::Release, "release slot (arrive empty mbarrier)", false, false},
    {"tp::named_barrier_sync", PipeEventKind::NamedSync, "bar.sync named barrier", true, false},
    {"tp::named_barrier_arrive", PipeEventKind::NamedArrive, "bar.arrive named barrier", false, false},
    {"tp::cp_async_commit", PipeEventKind::Commit, "cp.async commit_group", false, false},
    {"tp::cp_async_wait<", PipeEventKind::WaitGroup, "cp.async wait_group", true, false},
    // A tile copy into shared memory outside a software pipeline: cp.async (16-byte chunks where
    // stride and base allow, else element copies), committed and waited for after it.
    {"tp::copy_g2s", PipeEventKind::CpAsync, "cp.async", false, true},
    {"tp::frag_store", PipeEventKind::Store, "store tile", false, false},
    {"tp::copy_s2g", PipeEventKind::Store, "store tile", false, false},
    {"tp::tma_store", PipeEventKind::Store, "TMA store", false, true},
    {"tp::gemm_", PipeEventKind::Mma, "mma.sync gemm", false, false},
};

const StringImmNode* callee_of(const CallNode& c) { return c.args.empty() ? nullptr : c.args[0]->as<StringImmNode>(); }

// "tp::reduce_rows<tp::AccLayout<...>, ...>" -> "tp::reduce_rows".
std::string short_name(const std::string& callee) { return callee.substr(0, callee.find('<')); }

// The first pointer argument: written ones first (the tile a copy fills), else read ones.
const BufferLoadNode* first_pointer(const CallNode& c, bool written) {
    for (const auto& a : c.args)
        if (auto* p = a->as<CallNode>(); p && p->op == (written ? "tp.addr_w" : "tp.addr_r"))
            if (auto* l = pointer_target(a)) return l;
    return nullptr;
}

void set_buffer(PipeEvent& ev, const BufferLoadNode* l, bool slot) {
    if (!l) return;
    ev.buffer = l->buffer->name;
    // Only a ring (a leading stage dimension beyond the tile's two) has a slot to name.
    if (slot && l->indices.size() > 2) ev.slot = print(l->indices[0]);
}

PipeEvent call_event(const CallNode& c, const Stmt& s) {
    PipeEvent ev;
    ev.span = s->span;
    ev.code = one_line(s);
    if (c.op == "__syncthreads") {
        ev.kind = PipeEventKind::Barrier, ev.label = "__syncthreads", ev.waits = true;
        return ev;
    }
    if (c.op == "tp.async_wait") {
        // tp.async_wait(N, registers and tiles of the groups it completes...)
        ev.kind = PipeEventKind::MmaWait, ev.waits = true;
        ev.label = "wgmma wait_group " + (c.args.empty() ? std::string("?") : print(c.args[0]));
        if (auto* l = first_pointer(c, false)) set_buffer(ev, l, true);
        return ev;
    }
    const StringImmNode* callee = callee_of(c);
    const std::string name = callee ? callee->value : c.op;
    if (c.op == "tp.async_call") {
        ev.kind = PipeEventKind::MmaIssue, ev.async = true;
        ev.label = "wgmma issue (" + short_name(name).substr(short_name(name).rfind(':') + 1) + ")";
        set_buffer(ev, first_pointer(c, false), true);
        return ev;
    }
    if (c.op == "tp.call_async") {
        ev.kind = PipeEventKind::CpAsync, ev.async = true;
        set_buffer(ev, first_pointer(c, true), true);
        ev.label = "cp.async " + ev.buffer;
        return ev;
    }
    for (const auto& h : kHelpers) {
        if (name.rfind(h.prefix, 0) != 0) continue;
        ev.kind = h.kind, ev.label = h.label, ev.waits = h.waits, ev.async = h.async;
        if (h.kind == PipeEventKind::WaitGroup) {
            const size_t at = std::strlen(h.prefix);
            ev.label.append(" ").append(name, at, name.find('>') - at);  // the N of wait_group<N>
        }
        if ((h.kind == PipeEventKind::NamedSync || h.kind == PipeEventKind::NamedArrive) && c.args.size() > 1)
            ev.label.append(" ").append(print(c.args[1]));
        if (h.kind == PipeEventKind::TmaLoad || h.kind == PipeEventKind::Store || h.kind == PipeEventKind::CpAsync)
            set_buffer(ev, first_pointer(c, true), true);
        if (h.kind == PipeEventKind::CpAsync && !ev.buffer.empty()) ev.label += " " + ev.buffer;
        if (h.kind == PipeEventKind::Mma) set_buffer(ev, first_pointer(c, false), true);
        if (h.kind == PipeEventKind::TmaLoad && !ev.buffer.empty()) ev.label += " " + ev.buffer;
        return ev;
    }
    ev.kind = PipeEventKind::Compute;
    ev.label = short_name(name);
    if (ev.label.rfind("tp::", 0) == 0) ev.label = ev.label.substr(4);
    return ev;
}

// The first buffer a loop stores to, for a readable label of element-wise work.
std::string stored_buffer(const Stmt& s) {
    struct Find : IRVisitor {
        std::string name;
        void visit_BufferStore(const BufferStoreNode& n, const Stmt& st) override {
            if (name.empty()) name = n.buffer->name;
            IRVisitor::visit_BufferStore(n, st);
        }
    } f;
    f.visit(s);
    return f.name;
}

}  // namespace

const BufferLoadNode* pointer_target(const Expr& e) {
    auto* c = e ? e->as<CallNode>() : nullptr;
    if (!c || (c->op != "tp.addr_r" && c->op != "tp.addr_w") || c->args.empty()) return nullptr;
    return c->args[0]->as<BufferLoadNode>();
}

std::string one_line(const Stmt& s) {
    std::string t = print(s);
    size_t b = t.find_first_not_of(' ');
    t = b == std::string::npos ? "" : t.substr(b);
    if (size_t nl = t.find('\n'); nl != std::string::npos) t = t.substr(0, nl);
    return t;
}

std::optional<PipeEvent> classify(const Stmt& s) {
    if (!s) return std::nullopt;
    if (auto* e = s->as<EvaluateNode>()) {
        if (auto* c = e->value->as<CallNode>()) return call_event(*c, s);
        return std::nullopt;
    }
    if (auto* b = s->as<BarrierOpNode>()) {
        PipeEvent ev;
        ev.span = s->span, ev.code = one_line(s), ev.buffer = b->barrier->name;
        ev.kind = b->barrier_kind == BarrierKind::Wait ? PipeEventKind::MbarWait : PipeEventKind::MbarArrive;
        ev.waits = b->barrier_kind == BarrierKind::Wait;
        ev.label = std::string(barrier_kind_name(b->barrier_kind)) + " " + b->barrier->name + "[" + print(b->index) + "]";
        return ev;
    }
    if (auto* st = s->as<BufferStoreNode>()) {
        PipeEvent ev;
        ev.span = s->span, ev.code = one_line(s);
        const bool scalar = st->buffer->scope == Scope::Var;
        ev.kind = scalar ? PipeEventKind::Scalar : PipeEventKind::Compute;
        ev.label = (scalar ? "" : "store ") + st->buffer->name;
        return ev;
    }
    if (auto* f = s->as<ForNode>()) {
        if (has_sync_events(s)) return std::nullopt;
        PipeEvent ev;
        ev.span = s->span, ev.code = one_line(s), ev.kind = PipeEventKind::Compute;
        std::string target = stored_buffer(f->body);
        ev.label = (target.empty() ? std::string("loop") : target) + " (" + print(f->extent) + "-iteration loop)";
        // A loop of template calls (reductions per row...) reads better by its first call.
        struct FirstCall : IRVisitor {
            std::optional<PipeEvent> ev;
            void visit_Evaluate(const EvaluateNode& n, const Stmt& st) override {
                if (!ev) ev = classify(st);
            }
        } fc;
        fc.visit(f->body);
        if (target.empty() && fc.ev) ev.label = fc.ev->label + " (" + print(f->extent) + "-iteration loop)";
        return ev;
    }
    return std::nullopt;
}

bool has_sync_events(const Stmt& s) {
    struct Find : IRVisitor {
        bool found = false;
        void visit_Evaluate(const EvaluateNode& n, const Stmt& st) override {
            if (auto ev = classify(st); ev && ev->kind != PipeEventKind::Compute && ev->kind != PipeEventKind::Scalar) found = true;
        }
        void visit_BarrierOp(const BarrierOpNode&, const Stmt&) override { found = true; }
    } f;
    f.visit(s);
    return f.found;
}

}  // namespace tp::pipeview
