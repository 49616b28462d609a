// inspect_layout (tileplay/layout.h): compiles the kernel, asks layout inference itself for the
// fragment layouts (on the IR it is about to see: the pipeline stopped before it), evaluates
// transform::FragLayout's owner formulas element by element, and lays shared tiles out with the
// code generator's swizzled offset; the accesses come from layout_access.cpp.
#include <algorithm>
#include <functional>

#include "codegen/cuda/smem_swizzle.h"
#include "ir/functor.h"
#include "layout/layout_internal.h"
#include "pipeline.h"
#include "target.h"
#include "transform/layout_inference.h"

namespace tp {

using namespace ir;
using transform::FragLayout;

namespace {

std::vector<const AllocateNode*> allocations(const PrimFunc& f) {
    struct V : IRVisitor {
        std::vector<const AllocateNode*> out;
        void visit_Allocate(const AllocateNode& n, const Stmt& s) override {
            out.push_back(&n);
            IRVisitor::visit_Allocate(n, s);
        }
    } v;
    v.visit(f.body);
    return v.out;
}

void set_shape(const BufferNode& b, BufferLayout& bl) {
    std::vector<int64_t> s;
    for (const auto& d : b.shape) s.push_back(as_const_int(d).value_or(1));
    bl.cols = s.empty() ? 1 : s.back();
    bl.rows = s.size() >= 2 ? s[s.size() - 2] : 1;
    bl.stages = 1;
    for (size_t i = 0; i + 2 < s.size(); ++i) bl.stages *= s[i];
    bl.elem_bytes = b.dtype.bytes();
    bl.dtype = b.dtype.name();
    bl.decl = b.span;
}

// Owners of every element from the FragLayout's own formulas, evaluated per (thread, slot).
void fragment_owners(const FragLayout& l, BufferLayout& bl) {
    const int64_t elems = bl.rows * bl.cols * bl.stages;
    bl.owners.assign(size_t(elems), {});
    bl.regs_per_thread = l.local_size();
    if (l.kind == FragLayout::Replicated) {
        for (int64_t e = 0; e < elems; ++e) bl.owners[size_t(e)].push_back({-1, int(e)});
        return;
    }
    auto tid = std::make_shared<VarNode>("tid", DataType::int32()), slot = std::make_shared<VarNode>("i", DataType::int32());
    Expr first, second;  // (row, col) for Acc, the element for the others
    int64_t threads = l.threads;
    switch (l.kind) {
        case FragLayout::Acc:
            first = l.acc_row(tid, slot), second = l.acc_col(tid, slot);
            break;
        case FragLayout::Row:
            first = l.slot_row(tid, slot);
            break;
        case FragLayout::Col:
            first = l.slot_col(tid, slot);
            break;
        case FragLayout::Striped:
            first = l.striped_elem(tid, slot);
            break;
        case FragLayout::StripedRow:
            first = l.striped_row(tid, slot);
            break;
        default:
            return;
    }
    if (l.kind == FragLayout::Acc || l.kind == FragLayout::Row || l.kind == FragLayout::Col) threads = int64_t(l.warps_m) * l.warps_n * 32;
    layout::Evaluator ev;
    for (int64_t t = 0; t < threads; ++t)
        for (int64_t i = 0; i < l.local_size(); ++i) {
            layout::Env env{{tid.get(), t}, {slot.get(), i}};
            int64_t e = ev.value(first, env);
            if (second) e = e * bl.cols + ev.value(second, env);
            if (e >= 0 && e < elems) bl.owners[size_t(e)].push_back({int(t), int(i)});
        }
}

// The statements of the tile-level IR that read or write fragment `b` (registers: no
// shared-memory traffic, so nothing to count), for the hover's DSL lines.
std::vector<LayoutAccess> fragment_statements(const PrimFunc& f, const BufferNode* b, int64_t elems) {
    struct V : IRVisitor {
        const BufferNode* b;
        std::vector<std::tuple<std::string, bool, Span>> hits;
        Span span;
        void add(const std::string& what, bool write, Span s) { hits.emplace_back(what, write, s); }
        void visit_GemmOp(const GemmOpNode& n, const Stmt& s) override {
            if (n.C.buffer.get() == b) add("T.gemm accumulator (read and written)", true, n.span);
            if (n.A.buffer.get() == b) add("T.gemm operand A (from registers)", false, n.span);
            IRVisitor::visit_GemmOp(n, s);
        }
        void visit_CopyOp(const CopyOpNode& n, const Stmt& s) override {
            if (n.src.buffer.get() == b) add("T.copy source", false, n.span);
            if (n.dst.buffer.get() == b) add("T.copy destination", true, n.span);
        }
        void visit_FillOp(const FillOpNode& n, const Stmt& s) override {
            if (n.dst.buffer.get() == b) add("T.fill / T.clear", true, n.span);
            IRVisitor::visit_FillOp(n, s);
        }
        void visit_ReduceOp(const ReduceOpNode& n, const Stmt& s) override {
            if (n.src.get() == b) add("T.reduce source", false, n.span);
            if (n.dst.get() == b) add("T.reduce destination", true, n.span);
            IRVisitor::visit_ReduceOp(n, s);
        }
        void visit_BufferStore(const BufferStoreNode& n, const Stmt& s) override {
            span = n.span;
            if (n.buffer.get() == b) add("element store", true, n.span);
            IRVisitor::visit_BufferStore(n, s);
        }
        void visit_BufferLoad(const BufferLoadNode& n, const Expr& e) override {
            if (n.buffer.get() == b) add("element load", false, span.valid() ? span : n.span);
            IRVisitor::visit_BufferLoad(n, e);
        }
    } v;
    v.b = b;
    v.visit(f.body);
    std::vector<LayoutAccess> out;
    for (const auto& [what, write, span] : v.hits) {
        bool dup = std::any_of(out.begin(), out.end(), [&](const LayoutAccess& a) { return a.span == span && a.what == what; });
        if (dup) continue;
        LayoutAccess a;
        a.what = what;
        a.write = write;
        a.span = span;
        a.note = "registers: no shared-memory traffic";
        a.touch.assign(size_t(elems), LayoutOwner{});
        a.touched.assign(size_t(elems), 1);
        out.push_back(std::move(a));
    }
    return out;
}

// The swizzle's description: the XOR formula and, where it is one, the CUTLASS Swizzle<B, M, S>
// on byte addresses (bits [M, M+B) XOR-ed with bits [M+S, M+S+B)) and the TMA / wgmma mode.
LayoutSwizzle describe_swizzle(const BufferNode& b, const BufferLayout& bl) {
    LayoutSwizzle s;
    s.layout = b.layout;
    const bool sw = b.layout == "swizzle" || b.layout == "panels";
    if (!sw) {
        s.pitch = bl.cols;
        s.formula = "row-major, no swizzle";
        return s;
    }
    codegen::SmemSwizzle p = codegen::smem_swizzle(bl.cols, bl.elem_bytes, b.layout == "panels");
    s.swizzled = p.mask > 0;
    s.panels = p.panels;
    s.pitch = p.pitch, s.vec = p.vec, s.rows_per_key = p.rows_per_key, s.mask = p.mask;
    const std::string key = p.rows_per_key > 1 ? "(row / " + std::to_string(p.rows_per_key) + ")" : "row";
    s.formula = "16-byte chunk c of a row is stored at chunk c ^ (" + key + " & " + std::to_string(p.mask) + ")";
    if (p.panels) s.formula += ", in 128-byte panels of " + std::to_string(p.pitch) + " columns";
    const int64_t row_bytes = p.pitch * bl.elem_bytes, line = row_bytes * p.rows_per_key;
    int bits = 0, shift = 0;
    while ((int64_t(1) << bits) <= p.mask) ++bits;
    while ((int64_t(16) << shift) < line) ++shift;
    const bool pow2 = (line & (line - 1)) == 0 && (int64_t(16) << shift) == line;
    if (s.swizzled && pow2) s.cutlass = "Swizzle<" + std::to_string(bits) + ",4," + std::to_string(shift) + "> on byte addresses";
    if (s.swizzled && pow2 && shift == 3) s.mode_bytes = int(16 << bits);  // 1 / 2 / 3 bits: 32B / 64B / 128B
    if (!s.swizzled) s.formula = "no swizzle (rows of one 16-byte chunk)";
    return s;
}

void shared_layout(const BufferNode& b, BufferLayout& bl) {
    set_shape(b, bl);
    bl.scope = "shared";
    bl.swizzle = describe_swizzle(b, bl);
    bl.byte_offset.assign(size_t(bl.rows * bl.cols), 0);
    auto buf = std::make_shared<BufferNode>(b);
    layout::Evaluator ev;
    for (int64_t r = 0; r < bl.rows; ++r)
        for (int64_t c = 0; c < bl.cols; ++c) {
            int64_t off = r * bl.cols + c;
            if ((b.layout == "swizzle" || b.layout == "panels") && b.shape.size() >= 2) {
                std::vector<Expr> idx(b.shape.size() - 2, int_imm(0));
                idx.push_back(int_imm(r));
                idx.push_back(int_imm(c));
                off = ev.value(codegen::swizzled_smem_offset(buf, idx), {});
            }
            bl.byte_offset[size_t(r * bl.cols + c)] = off * bl.elem_bytes;
        }
    bl.description = bl.swizzle.swizzled ? "shared tile, " + bl.swizzle.formula : "shared tile, row-major";
}

std::string first_error(const CompileResult& r) {
    for (const auto& d : r.diagnostics)
        if (d.severity == Severity::Error) return d.message;
    return r.internal_error ? r.internal_error->what() : "the kernel did not compile";
}

}  // namespace

LayoutReport inspect_layout(const CompileRequest& in, const std::string& buffer) {
    LayoutReport rep;
    CompileRequest req = in;
    req.stop_after = Stage::Lowered;
    CompileResult r = compile(req);
    rep.file = r.file, rep.target = req.target, rep.kernel = r.kernel.factory, rep.diagnostics = r.diagnostics;
    auto target = parse_target(req.target);
    if (!r.ok || !r.func || !target) {
        rep.error = first_error(r);
        return rep;
    }
    // The IR layout-inference sees, per launch (the pass configs as compile applies them).
    auto f = std::make_shared<PrimFunc>(*r.func);
    for (const auto& [k, v] : req.pass_configs) f->attrs[k] = v;
    PipelineOptions o;
    o.target = *target;
    o.fast_math = req.fast_math;
    o.stop_before = "layout-inference";
    DiagnosticEngine quiet(r.file);
    PipelineResult pre = run_pipeline(f, o, quiet);
    std::vector<std::pair<const PrimFunc*, const AllocateNode*>> frags, shared;
    for (const auto& l : pre.launches)
        for (auto* a : allocations(*l))
            if (a->buffer->scope == Scope::Fragment) frags.push_back({l.get(), a});
    for (const auto& l : r.lowered_launches)
        for (auto* a : allocations(*l))
            if (a->buffer->scope == Scope::Shared) shared.push_back({l.get(), a});
    for (const auto* list : {&frags, &shared})
        for (const auto& [fn, a] : *list) {
            const std::string scope = list == &frags ? "fragment" : "shared";
            bool seen = std::any_of(rep.buffers.begin(), rep.buffers.end(), [&](const LayoutBufferInfo& i) { return i.name == a->buffer->name; });
            if (!seen) rep.buffers.push_back({a->buffer->name, scope});
        }
    rep.ok = true;
    if (buffer.empty()) return rep;
    BufferLayout& bl = rep.layout;
    bl.name = buffer;
    for (const auto& [fn, a] : frags) {
        if (a->buffer->name != buffer) continue;
        auto plans = transform::plan_wgmma_gemms(*fn, *target, quiet);
        auto layouts = transform::infer_fragment_layouts(*fn, quiet, &plans);
        auto it = layouts.find(a->buffer.get());
        if (it == layouts.end()) break;
        set_shape(*a->buffer, bl);
        bl.scope = "fragment";
        for (const auto& [g, p] : plans) bl.wgmma |= g->C.buffer.get() == a->buffer.get();
        bl.threads = int(it->second.kind == FragLayout::Acc ? it->second.warps_m * it->second.warps_n * 32 : it->second.threads);
        bl.description = it->second.describe() + (bl.wgmma ? "; wgmma m64nNk16 accumulator, warpgroups of 128 threads" : "");
        fragment_owners(it->second, bl);
        bl.accesses = fragment_statements(*fn, a->buffer.get(), bl.rows * bl.cols * bl.stages);
        return rep;
    }
    for (const auto& [fn, a] : shared) {
        if (a->buffer->name != buffer) continue;
        shared_layout(*a->buffer, bl);
        struct Threads : IRVisitor {
            int64_t n = 0;
            void visit_KernelLaunch(const KernelLaunchNode& k, const Stmt& s) override {
                n = k.num_threads();
                IRVisitor::visit_KernelLaunch(k, s);
            }
        } t;
        t.visit(fn->body);
        bl.threads = int(t.n);
        bl.accesses = layout::shared_accesses(*fn, buffer, bl);
        return rep;
    }
    std::string names;
    for (const auto& b : rep.buffers) names += (names.empty() ? "" : ", ") + b.name;
    rep.ok = false;
    rep.error = "no fragment or shared buffer named `" + buffer + "` in the kernel; it has: " + (names.empty() ? "none" : names);
    rep.layout = BufferLayout{};
    return rep;
}

}  // namespace tp
