// hoist_gemm_operand (see hoist_gemm_operand.h).
#include "transform/hoist_gemm_operand.h"

#include <algorithm>
#include <map>
#include <set>

#include "ir/functor.h"
#include "ops/access.h"
#include "ops/gemm.h"
#include "transform/tile_lowering.h"

namespace tp::transform {

using namespace ir;

namespace {

constexpr int64_t kMaxOperandWords = 32;    // registers a thread the hoisted tile may take
constexpr int64_t kMaxFragmentWords = 160;  // registers a thread all fragments may take then

// ...and no more than the register budget of `threads` consumers less 40 for addresses and
// temporaries: the budget setmaxnreg gives them beside a 24-register producer warpgroup
// (producer_consumer), at most 240. Two warpgroups get 240, so 160 holds; three get 160, and
// an attention kernel at D=64 whose fragments already take 128 spilled with Q hoisted.
int64_t fragment_word_limit(int64_t threads) {
    if (threads <= 0) return kMaxFragmentWords;
    const int64_t budget = std::min<int64_t>(240, (65536 - 128 * 24) / threads / 8 * 8);
    return std::min(kMaxFragmentWords, budget - 40);
}

int64_t elements(const Buffer& b) {
    int64_t n = 1;
    for (const auto& d : b->shape) {
        auto v = as_const_int(d);
        if (!v || *v <= 0) return -1;
        n *= *v;
    }
    return n;
}

// 32-bit registers a thread holds of fragment b over `threads` threads.
int64_t words(const Buffer& b, int64_t threads) {
    int64_t n = elements(b);
    return n < 0 ? -1 : (n * b->dtype.bytes() + 4 * threads - 1) / (4 * threads);
}

// Buffers any statement of a subtree writes.
struct Writes : ops::OpAccessVisitor {
    std::set<const BufferNode*> bufs;
    void on_op(const StmtNode&, const ops::OpAccess& a) override {
        for (const auto& r : a.writes) bufs.insert(r.buffer.get());
    }
    void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
        bufs.insert(n.buffer.get());
        IRVisitor::visit_BufferStore(n, s);
    }
    void visit_Call(const CallNode& n, const Expr& e) override {
        if (n.op == "atomic_add" && !n.args.empty())
            if (auto* l = n.args[0]->as<BufferLoadNode>()) bufs.insert(l->buffer.get());
        IRVisitor::visit_Call(n, e);
    }
};

struct FragmentWords : IRVisitor {
    int64_t threads = 0, total = 0;
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        if (n.buffer->scope == Scope::Fragment) total += std::max<int64_t>(words(n.buffer, threads), 0);
        IRVisitor::visit_Allocate(n, s);
    }
};

struct Hoist : IRMutator {
    DiagnosticEngine* diags = nullptr;
    const Target* target = nullptr;
    int64_t threads = 0, fragment_words = 0;
    std::vector<Buffer> added;  // fragments to allocate at the launch

    // Whether gemm g may read A from registers inside a loop that writes
    // `written`.
    bool eligible(const GemmOpNode& g, const std::set<const BufferNode*>& written) {
        const Buffer& a = g.A.buffer;
        if (a->scope != Scope::Shared || written.count(a.get()) || g.transpose_A || !whole_buffer(g.A) || a->shape.size() != 2) return false;
        if (a->dtype != DataType::float16() && a->dtype != DataType::bfloat16()) return false;
        if (g.C.buffer->scope != Scope::Fragment) return false;
        const int64_t w = words(a, threads);
        if (w <= 0) return false;
        // The same gemm with A in registers must be an RS wgmma (else it would not
        // pay).
        GemmOpNode rs(g);
        rs.A = ops::whole_region(std::make_shared<BufferNode>(a->name, a->dtype, a->shape, Scope::Fragment, g.span));
        if (ops::WgmmaPlan p = ops::plan_wgmma(rs, *target, threads); !p.ok || !p.rs || p.warps_n != 1) return false;
        if (w > kMaxOperandWords || fragment_words + w > fragment_word_limit(threads)) {
            diags->report(DiagKind::FastPathNotTaken, g.span,
                          {"`" + a->name + "` in registers (an RS wgmma)",
                           "it needs " + std::to_string(w) + " registers a thread beside the fragments' " + std::to_string(fragment_words),
                           "each issue reads it from shared memory"});
            return false;
        }
        fragment_words += w;
        return true;
    }

    Stmt visit_For(const ForNode& n, const Stmt& s) override {
        Stmt inner = IRMutator::visit_For(n, s);
        auto* loop = inner->as<ForNode>();
        if (!loop || (loop->for_kind != ForKind::Pipelined && loop->for_kind != ForKind::Serial)) return inner;
        Writes w;
        w.visit(loop->body);
        std::vector<Stmt> body;
        flatten_seq(loop->body, body);
        std::map<const BufferNode*, Buffer> frag;  // shared A -> its register copy
        std::vector<Stmt> before;
        bool changed = false;
        for (auto& st : body) {
            auto* g = st->as<GemmOpNode>();
            if (!g || !(frag.count(g->A.buffer.get()) || eligible(*g, w.bufs))) continue;
            Buffer& f = frag[g->A.buffer.get()];
            if (!f) {
                f = std::make_shared<BufferNode>(g->A.buffer->name + "_regs", g->A.buffer->dtype, g->A.buffer->shape, Scope::Fragment, g->span);
                added.push_back(f);
                before.push_back(std::make_shared<CopyOpNode>(g->A, ops::whole_region(f), g->span));
            }
            auto ng = std::make_shared<GemmOpNode>(*g);
            ng->A = ops::whole_region(f);
            st = ng;
            changed = true;
        }
        if (!changed) return inner;
        auto nl = std::make_shared<ForNode>(*loop);
        nl->body = make_seq(body, loop->body->span);
        before.push_back(nl);
        return make_seq(before, n.span);
    }

    Stmt visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        threads = n.num_threads();
        FragmentWords fw;
        fw.threads = threads;
        fw.visit(n.body);
        fragment_words = fw.total;
        added.clear();
        Stmt body = mutate(n.body);
        if (added.empty()) return s;
        for (const auto& b : added) body = std::make_shared<AllocateNode>(b, nullptr, body, n.span);
        auto k = std::make_shared<KernelLaunchNode>(n);
        k->body = body;
        return k;
    }
};

}  // namespace

PrimFuncPtr hoist_gemm_operand(const PrimFuncPtr& func, const Target& target, DiagnosticEngine& diags) {
    if (!func || !target.has_wgmma()) return func;
    if (auto it = func->attrs.find("tp.disable_hoist_operand"); it != func->attrs.end() && it->second == "true") return func;
    Hoist h;
    h.diags = &diags;
    h.target = &target;
    return mutate_func(func, h);
}

}  // namespace tp::transform
