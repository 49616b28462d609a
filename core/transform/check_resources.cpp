// check_resources (see check_resources.h).
#include "transform/check_resources.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/functor.h"
#include "ops/access.h"
#include "transform/shared_reuse.h"

namespace tp::transform {

using namespace ir;

namespace {

bool is_fp8(DataType t) { return t.code == DataType::Float8E4M3 || t.code == DataType::Float8E5M2; }

class ResourceChecker : public ops::OpAccessVisitor {
public:
    const Target& target;
    DiagnosticEngine& diags;
    std::vector<const AllocateNode*> shared_allocs;     // program order
    std::map<const BufferNode*, int> stages;            // shared tiles filled inside T.Pipelined
    std::vector<int> pipeline_stack;
    bool fp8_reported = false;

    ResourceChecker(const Target& t, DiagnosticEngine& d) : target(t), diags(d) {}

    void check_dtype(DataType t, Span span) {
        if (is_fp8(t) && target.sm < 89 && !fp8_reported) {
            diags.report(DiagKind::FeatureNeedsTarget, span, {"`" + t.name() + "`", "sm_89", target.name});
            fp8_reported = true;
        }
    }
    void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
        if (n.buffer->scope == Scope::Shared) shared_allocs.push_back(&n);
        if (n.buffer->scope == Scope::Barrier && target.sm < 80)
            diags.report(DiagKind::FeatureNeedsTarget, n.span, {"`T.alloc_barrier` (mbarriers)", "sm_80", target.name});
        check_dtype(n.buffer->dtype, n.span);
        IRVisitor::visit_Allocate(n, s);
    }
    void visit_For(const ForNode& n, const Stmt& s) override {
        bool pipelined = n.for_kind == ForKind::Pipelined && n.num_stages > 1;
        if (pipelined) pipeline_stack.push_back(n.num_stages);
        IRVisitor::visit_For(n, s);
        if (pipelined) pipeline_stack.pop_back();
    }
    void on_op(const StmtNode&, const ops::OpAccess& a) override {
        // TileLang keeps num_stages copies of every shared tile loaded inside a pipelined loop.
        if (pipeline_stack.empty() || !a.stage_producer) return;
        for (const auto& w : a.writes)
            if (w.buffer->scope == Scope::Shared) stages[w.buffer.get()] = std::max(stages[w.buffer.get()], pipeline_stack.back());
    }
    void visit_KernelLaunch(const KernelLaunchNode& n, const Stmt& s) override {
        if (n.num_threads() > 1024) diags.report(DiagKind::TooManyThreads, n.span, {std::to_string(n.num_threads())});
        IRVisitor::visit_KernelLaunch(n, s);
    }
    void visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
        DataType a = n.A.buffer->dtype;
        if (a.code == DataType::BFloat && !target.has_bf16_mma())
            diags.report(DiagKind::FeatureNeedsTarget, n.span, {"`T.gemm` on bfloat16", "sm_80", target.name});
        const bool fp8 = a.code == DataType::Float8E4M3 || a.code == DataType::Float8E5M2;
        if (fp8 && target.sm < 89) diags.report(DiagKind::FeatureNeedsTarget, n.span, {"`T.gemm` on float8", "sm_89", target.name});
        OpAccessVisitor::visit_GemmOp(n, s);
    }
};

// The most shared bytes live at one top-level statement (stage copies counted), or nullopt
// when lifetimes are unknown (warp roles, symbolic shapes).
std::optional<int64_t> peak_live_shared_bytes(const PrimFunc& func, const std::map<const BufferNode*, int>& stages) {
    auto lives = shared_lifetimes(func);
    if (lives.empty()) return std::nullopt;
    size_t n = 0;
    for (const auto& l : lives) n = std::max(n, l.last + 1);
    std::vector<int64_t> at(n, 0);
    for (const auto& l : lives) {
        int64_t bytes = l.buffer->dtype.bytes();
        for (const auto& d : l.buffer->shape) {
            auto k = as_const_int(d);
            if (!k) return std::nullopt;
            bytes *= *k;
        }
        auto st = stages.find(l.buffer.get());
        if (st != stages.end()) bytes *= st->second;
        for (size_t t = l.first; t <= l.last; ++t) at[t] += bytes;
    }
    return *std::max_element(at.begin(), at.end());
}

}  // namespace

bool check_resources(const PrimFunc& func, const Target& target, DiagnosticEngine& diags) {
    int before = diags.error_count();
    ResourceChecker c(target, diags);
    for (const auto& p : func.params)
        if (p.buffer) c.check_dtype(p.buffer->dtype, p.buffer->span.valid() ? p.buffer->span : func.span);
    c.visit(func.body);

    // Report at the allocation that crosses the limit, with the running total, unless buffers
    // that are never live together could share bytes (share-shared-memory, after pipelining;
    // check-shared-budget reports at the kernel when that is still too much).
    auto peak = peak_live_shared_bytes(func, c.stages);
    if (peak && *peak <= target.max_smem_per_block) return diags.error_count() == before;
    int64_t total = 0;
    for (const AllocateNode* a : c.shared_allocs) {
        int64_t elems = 1;
        bool known = true;
        for (const auto& d : a->buffer->shape) {
            auto k = as_const_int(d);
            if (!k) { known = false; break; }
            elems *= *k;
        }
        if (!known) continue;  // codegen reports symbolic shared shapes
        auto st = c.stages.find(a->buffer.get());
        int64_t bytes = elems * a->buffer->dtype.bytes() * (st == c.stages.end() ? 1 : st->second);
        total += bytes;
        if (total > target.max_smem_per_block) {
            Span span = a->span.valid() ? a->span : a->buffer->span;
            diags.report(DiagKind::SharedMemoryExceeded, span,
                         {std::to_string(total), target.name, std::to_string(target.max_smem_per_block)});
            break;
        }
    }
    return diags.error_count() == before;
}

}  // namespace tp::transform
