// The accesses of one shared buffer in a lowered launch (see layout_internal.h): template calls
// on it go to layout_templates.cpp; its own loads and stores (what the code generator prints as
// ld.shared / st.shared) are run here for every thread of each warp over the loops around them,
// the addresses from the same index expressions and the same swizzled offset codegen emits.
#include <algorithm>

#include "ir/functor.h"
#include "layout/layout_internal.h"

namespace tp::layout {

using namespace ir;

namespace {

// The loops, branches, bindings and thread range a statement sits in.
struct Frame {
    const VarNode* var;
    Expr min, extent;
    ForKind kind;
};
struct Context {
    std::vector<Frame> loops;
    std::vector<std::pair<Expr, bool>> conds;  // must evaluate to the bool
    std::vector<std::pair<const VarNode*, Expr>> lets;
    int64_t t0 = 0, t1 = 0;  // threads that run it
};
struct Found {
    bool is_template = false, write = false;
    std::vector<Expr> indices;  // a load / store's, or the template operand's origin
    TemplateCall call;
    Span span;
    Context ctx;
};

bool is_addr(const Expr& e) {
    auto* c = e ? e->as<CallNode>() : nullptr;
    return c && (c->op == "tp.addr_r" || c->op == "tp.addr_w") && !c->args.empty() && c->args[0]->as<BufferLoadNode>();
}

class Finder : public IRVisitor {
public:
    std::string name;
    std::vector<Found> found;
    std::vector<Var> thread_vars;
    std::vector<int64_t> thread_extents;
    Context ctx;
    Span span;

protected:
    void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        thread_vars = n.thread_vars;
        thread_extents = n.threads;
        ctx.t0 = 0, ctx.t1 = n.num_threads();
        IRVisitor::visit_KernelLaunch(n, s);
    }
    void visit_For(const ForNode& n, const Stmt&) override {
        ctx.loops.push_back({n.loop_var.get(), n.min, n.extent, n.for_kind});
        visit(n.body);
        ctx.loops.pop_back();
    }
    void visit_IfThenElse(const IfThenElseNode& n, const Stmt&) override {
        span = n.span;
        visit(n.cond);
        ctx.conds.push_back({n.cond, true});
        visit(n.then_case);
        ctx.conds.back().second = false;
        visit(n.else_case);
        ctx.conds.pop_back();
    }
    void visit_LetStmt(const LetStmtNode& n, const Stmt&) override {
        ctx.lets.push_back({n.var.get(), n.value});
        visit(n.body);
        ctx.lets.pop_back();
    }
    void visit_WarpRoles(const WarpRolesNode& n, const Stmt&) override {
        const Context saved = ctx;
        ctx.t0 = 0, ctx.t1 = n.all_consumer_threads();
        visit(n.consumer);
        ctx.t0 = n.all_consumer_threads(), ctx.t1 = n.all_consumer_threads() + n.producer_threads;
        visit(n.producer);
        ctx = saved;
    }
    void visit_RoleBlock(const RoleBlockNode& n, const Stmt&) override {
        const Context saved = ctx;
        ctx.t0 = n.first_thread(), ctx.t1 = n.first_thread() + n.num_threads();
        visit(n.body);
        ctx = saved;
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        span = n.span;
        if (n.buffer->name == name && n.buffer->scope == Scope::Shared) found.push_back({false, true, n.indices, {}, n.span, ctx});
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Evaluate(const EvaluateNode& n, const Stmt& s) override {
        span = n.span;
        auto* c = n.value ? n.value->as<CallNode>() : nullptr;
        if (!c || c->op.rfind("tp.", 0) != 0 || c->args.empty() || !c->args[0]->as<StringImmNode>()) return IRVisitor::visit_Evaluate(n, s);
        int operand = 0;
        for (size_t i = 1; i < c->args.size(); ++i) {
            if (!is_addr(c->args[i])) {
                visit(c->args[i]);
                continue;
            }
            auto* load = c->args[i]->as<CallNode>()->args[0]->as<BufferLoadNode>();
            if (load->buffer->name == name && load->buffer->scope == Scope::Shared) {
                auto t = parse_template(c->args[0]->as<StringImmNode>()->value);
                t->operand = operand;
                t->span = n.span;
                found.push_back({true, c->args[i]->as<CallNode>()->op == "tp.addr_w", load->indices, *t, n.span, ctx});
            }
            ++operand;
        }
    }
    void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
        if (n.buffer->name == name && n.buffer->scope == Scope::Shared) found.push_back({false, false, n.indices, {}, span, ctx});
        IRVisitor::visit_BufferLoad(n, e);
    }
};

// (stage, row, col) of an index list: the last two dims are the tile (a 1-D buffer is one row).
struct Coord {
    int64_t stage = 0, row = 0, col = 0;
};
Coord coord(const std::vector<Expr>& idx, const BufferNode& b, Evaluator& ev, const Env& env) {
    Coord c;
    const size_t n = idx.size();
    if (n == 0) return c;
    c.col = ev.value(idx[n - 1], env);
    if (n >= 2) c.row = ev.value(idx[n - 2], env);
    for (size_t i = 0; i + 2 < n; ++i) c.stage = c.stage * as_const_int(b.shape[i]).value_or(1) + ev.value(idx[i], env);
    return c;
}

constexpr int64_t kMaxIterations = 1024;  // loop iterations simulated per statement

// A load or store run by every thread of each warp in [t0, t1) over the loops around it: the
// first kMaxIterations iterations of those loops (all of them in the usual tile loops).
LayoutAccess direct_access(const Found& f, const Finder& fd, const BufferNode& buf, const BufferLayout& bl, const SharedGeometry& g) {
    AccessBuilder b(bl);
    b.a.write = f.write;
    b.a.span = f.span;
    // A vectorized innermost loop is one wide access per thread.
    std::vector<Frame> loops = f.ctx.loops;
    int64_t vec = 1;
    const VarNode* vec_var = nullptr;
    Evaluator ev;
    if (!loops.empty() && loops.back().kind == ForKind::Vectorized) {
        vec = std::max<int64_t>(1, ev.value(loops.back().extent, {}));
        vec_var = loops.back().var;
        loops.pop_back();
    }
    b.a.bytes = int(vec * bl.elem_bytes);
    b.a.what = std::string(f.write ? "st.shared " : "ld.shared ") + std::to_string(b.a.bytes) + " B";
    b.a.call = buf.name + "[" + std::to_string(f.indices.size()) + " indices] " + (f.write ? "store" : "load");
    std::vector<int64_t> ext;
    int64_t total = 1;
    for (const auto& l : loops) {
        ext.push_back(std::max<int64_t>(0, ev.value(l.extent, {})));
        total *= std::max<int64_t>(1, ext.back());
    }
    const int64_t iters = std::min(total, kMaxIterations);
    for (int64_t it = 0; it < iters; ++it) {
        Env env;
        int64_t rest = it;
        for (size_t k = loops.size(); k-- > 0;) {
            env[loops[k].var] = ev.value(loops[k].min, env) + rest % std::max<int64_t>(1, ext[k]);
            rest /= std::max<int64_t>(1, ext[k]);
        }
        if (vec_var) env[vec_var] = 0;
        for (int64_t w = f.ctx.t0; w < f.ctx.t1; w += 32) {
            std::vector<LaneAddress> lanes;
            for (int lane = 0; lane < 32 && w + lane < f.ctx.t1; ++lane) {
                int64_t tid = w + lane, stride = 1;
                for (size_t d = 0; d < fd.thread_vars.size(); ++d) {
                    env[fd.thread_vars[d].get()] = (tid / stride) % std::max<int64_t>(1, fd.thread_extents[d]);
                    stride *= std::max<int64_t>(1, fd.thread_extents[d]);
                }
                for (const auto& [v, e] : f.ctx.lets) env[v] = ev.value(e, env);
                bool on = true;
                for (const auto& [c, want] : f.ctx.conds) on &= bool(ev.value(c, env)) == want;
                if (!on) continue;
                Coord c = coord(f.indices, buf, ev, env);
                if (!g.inside(((c.row % bl.rows) + bl.rows) % bl.rows, c.col)) continue;
                lanes.push_back({lane, g.byte(c.stage, c.row, c.col)});
                for (int64_t k = 0; k < vec; ++k) b.touch(c.row, c.col + k, int(tid), -1, bl);
            }
            b.request(lanes);
        }
    }
    if (total > iters) b.a.note = "the first " + std::to_string(iters) + " of " + std::to_string(total) + " loop iterations";
    std::erase_if(ev.assumed, [&](const std::string& n) { return n == buf.name; });
    if (!ev.assumed.empty()) {
        std::string names;
        for (const auto& n : ev.assumed) names += (names.empty() ? "" : ", ") + n;
        b.a.note += (b.a.note.empty() ? "" : "; ") + std::string("taken as 0: ") + names;
    }
    return b.a;
}

}  // namespace

std::vector<LayoutAccess> shared_accesses(const PrimFunc& lowered, const std::string& name, const BufferLayout& bl) {
    Finder fd;
    fd.name = name;
    fd.visit(lowered.body);
    const BufferNode* buf = nullptr;
    struct FindBuf : IRVisitor {
        std::string name;
        const BufferNode* b = nullptr;
        void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
            if (n.buffer->name == name && n.buffer->scope == Scope::Shared) b = n.buffer.get();
            IRVisitor::visit_Allocate(n, s);
        }
    } fb;
    fb.name = name;
    fb.visit(lowered.body);
    buf = fb.b;
    std::vector<LayoutAccess> out;
    if (!buf) return out;
    SharedGeometry g{&bl, bl.rows * bl.cols * bl.elem_bytes};
    for (const Found& f : fd.found) {
        if (!f.is_template) {
            out.push_back(direct_access(f, fd, *buf, bl, g));
            continue;
        }
        TemplateCall call = f.call;
        Evaluator ev;
        Coord c = coord(f.indices, *buf, ev, {});
        call.origin = {c.stage, c.row, c.col};
        call.threads = int(f.ctx.t1 - f.ctx.t0);
        std::optional<LayoutAccess> a = template_access(call, bl, g);
        if (!a) {
            a = LayoutAccess{};
            a->what = "template " + call.name;
            a->note = "its thread mapping is not modelled: no bank conflicts counted";
            a->touch.assign(size_t(bl.rows * bl.cols), LayoutOwner{});
            a->touched.assign(size_t(bl.rows * bl.cols), 1);
        }
        a->call = call.text;
        a->span = f.span;
        if (a->what.rfind("template", 0) == 0 || a->degree == 0) a->write = a->write || f.write;
        out.push_back(std::move(*a));
    }
    // One DSL statement lowered to several calls of the same kind (a pipeline's prologue and its
    // loop body): one access, its requests summed and its worst degree kept.
    std::vector<LayoutAccess> merged;
    for (auto& a : out) {
        auto it = std::find_if(merged.begin(), merged.end(),
                               [&](const LayoutAccess& m) { return m.span == a.span && m.what == a.what && m.call == a.call && m.write == a.write; });
        if (it == merged.end()) {
            merged.push_back(std::move(a));
            continue;
        }
        it->degree = std::max(it->degree, a.degree);
        it->requests += a.requests, it->wavefronts += a.wavefronts, it->ideal_wavefronts += a.ideal_wavefronts;
        for (size_t e = 0; e < a.touched.size(); ++e)
            if (a.touched[e] && !it->touched[e]) it->touched[e] = 1, it->touch[e] = a.touch[e];
    }
    return merged;
}

}  // namespace tp::layout
