// T.gemm and TileLang's explicit Hopper forms T.wgmma_gemm / T.wait_wgmma, staged as one gemm
// tile op. T.wgmma_gemm issues the same C += A @ B without TileLang's implicit wait; our
// compiler places every wgmma wait itself (the wgmma-waits pass: before the first statement
// that touches the group's operands), so the user's T.wait_wgmma(n) has nothing left to order
// and stages nothing. On a target without wgmma the op lowers to mma.sync, which completes
// at issue: a valid run of "issue asynchronously, wait later".
#include "eval/tile_internal.h"
#include "target.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

const std::vector<std::string> kGemmArgs = {"A", "B", "C", "transpose_A", "transpose_B", "policy", "clear_accum", "k_pack", "wg_wait", "mbar"};
const std::vector<std::string> kWgmmaArgs = {"A", "B", "C", "transpose_A", "transpose_B", "policy", "clear_accum", "annotations"};

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "tile op"}, std::move(fn)});
}

// TileLang refuses T.wgmma_gemm where wgmma is missing; we keep the kernel portable and say once
// per kernel that its asynchronous gemms run synchronously there.
void note_wgmma_fallback(Evaluator& ev, Span span) {
    auto t = parse_target(ev.target);
    if (!t || t->has_wgmma() || !ev.kernel || ev.kernel->wgmma_fallback_noted) return;
    ev.kernel->wgmma_fallback_noted = true;
    ev.diags.report(DiagKind::FastPathNotTaken, span,
                    {"wgmma", "`T.wgmma_gemm` on " + ev.target + ", which has no wgmma",
                     "it runs as `T.gemm` on mma.sync, finished at issue, so its `T.wait_wgmma` waits for nothing"});
}

// Checks the tiles' shapes (A [M, K], B [K, N], C [M, N] after transposes) and stages the op.
Value stage_gemm_node(Evaluator& ev, const std::shared_ptr<ir::GemmOpNode>& node, const std::string& fname, Span span) {
    auto as = squeezed(node->A.region), bs = squeezed(node->B.region), cs = squeezed(node->C.region);
    if (as && bs && cs) {
        if (as->size() != 2 || bs->size() != 2 || cs->size() != 2)
            ev.fail(DiagKind::ShapeMismatch, span,
                    {"`" + fname + "` needs 2-D tiles, got A " + dims_text(*as) + ", B " + dims_text(*bs) + ", C " + dims_text(*cs)});
        int64_t m = node->transpose_A ? (*as)[1] : (*as)[0], ka = node->transpose_A ? (*as)[0] : (*as)[1];
        int64_t kb = node->transpose_B ? (*bs)[1] : (*bs)[0], n = node->transpose_B ? (*bs)[0] : (*bs)[1];
        if (ka != kb || m != (*cs)[0] || n != (*cs)[1])
            ev.fail(DiagKind::ShapeMismatch, span,
                    {"`" + fname + "` with A " + dims_text(*as) + (node->transpose_A ? " (transposed)" : "") + ", B " + dims_text(*bs) +
                     (node->transpose_B ? " (transposed)" : "") + " and C " + dims_text(*cs) + "; expected A [M, K], B [K, N], C [M, N]"});
    }
    ev.stager.emit(node);
    return Value::none();
}

Value stage_gemm(Evaluator& ev, CallArgs& a, const std::string& fname, bool wgmma) {
    ArgReader rd(ev, a, fname, wgmma ? kWgmmaArgs : kGemmArgs);
    require_kernel(ev, fname, a.span);
    ir::BufferRegion A = complete_region(ev, as_region(ev, rd.require(0), rd.span(0), fname.c_str()), nullptr, rd.span(0));
    ir::BufferRegion B = complete_region(ev, as_region(ev, rd.require(1), rd.span(1), fname.c_str()), nullptr, rd.span(1));
    ir::BufferRegion C = complete_region(ev, as_region(ev, rd.require(2), rd.span(2), fname.c_str()), nullptr, rd.span(2));
    for (const auto* x : {&A, &B, &C})
        if (is_view(ev, x->buffer))
            ev.fail(DiagKind::UnsupportedConstruct, a.span,
                    {"`" + fname + "` on `" + x->buffer->name + "`, a view made by T.reshape / T.view", "; give " + fname + " the buffer it views"});
    auto node = std::make_shared<ir::GemmOpNode>(A, B, C, a.span);
    if (const Value* v = rd.get(3)) node->transpose_A = ev.as_bool(*v, rd.span(3), "transpose_A");
    if (const Value* v = rd.get(4)) node->transpose_B = ev.as_bool(*v, rd.span(4), "transpose_B");
    if (const Value* v = rd.get(5); v && !v->is_none()) {
        if (v->kind != VK::Enum || v->as<EnumObj>()->owner != "GemmWarpPolicy")
            ev.fail(DiagKind::TypeMismatch, rd.span(5), {"`policy` expects `T.GemmWarpPolicy.Square`, `FullRow` or `FullCol`, got " + type_name(*v)});
        const std::string& n = v->as<EnumObj>()->name;
        node->policy = n == "FullRow" ? ir::GemmWarpPolicy::FullRow : n == "FullCol" ? ir::GemmWarpPolicy::FullCol : ir::GemmWarpPolicy::Square;
    }
    if (const Value* v = rd.get(6)) {
        if (ev.is_ir(*v)) {
            // clear_accum on a kernel value (`clear_accum=(j == 0)` in a T.unroll loop): C is
            // zeroed first where it holds, which is what clearing the accumulator means.
            ir::Expr cond = ev.to_expr(*v, rd.span(6), "clear_accum");
            if (!cond->dtype.is_bool()) cond = ir::make_cast(ir::DataType::boolean(), cond, rd.span(6));
            ir::DataType t = C.buffer->dtype;
            ir::Expr zero = t.is_float() ? ir::float_imm(0, t, a.span) : ir::int_imm(0, t, a.span);
            ev.stager.emit(std::make_shared<ir::IfThenElseNode>(cond, std::make_shared<ir::FillOpNode>(C, zero, a.span), nullptr, a.span));
        } else {
            node->clear_accum = ev.as_bool(*v, rd.span(6), "clear_accum");
        }
    }
    if (wgmma) {
        note_wgmma_fallback(ev, a.span);
        return stage_gemm_node(ev, node, fname, a.span);
    }
    if (const Value* v = rd.get(7)) node->k_pack = static_cast<int>(ev.as_int(*v, rd.span(7), "k_pack"));
    if (const Value* v = rd.get(8)) node->wg_wait = static_cast<int>(ev.as_int(*v, rd.span(8), "wg_wait"));
    return stage_gemm_node(ev, node, fname, a.span);
}

}  // namespace

void register_tile_gemm(Reg& r) {
    add(r, "gemm", "T.gemm(A, B, C, transpose_A=False, transpose_B=False, policy=T.GemmWarpPolicy.Square, clear_accum=False, k_pack=1, wg_wait=0)",
        "C += A @ B on tiles (tensor cores)", [](Evaluator& ev, CallArgs& a) { return stage_gemm(ev, a, "T.gemm", false); });
    add(r, "wgmma_gemm", "T.wgmma_gemm(A, B, C, transpose_A=False, transpose_B=False, policy=T.GemmWarpPolicy.Square, clear_accum=False)",
        "C += A @ B issued asynchronously (Hopper wgmma); the compiler places its wait",
        [](Evaluator& ev, CallArgs& a) { return stage_gemm(ev, a, "T.wgmma_gemm", true); });
    add(r, "wait_wgmma", "T.wait_wgmma(n)", "wait until at most n wgmma groups are pending (the compiler already waits where results are used)",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.wait_wgmma", {"id"});
            require_kernel(ev, "T.wait_wgmma", a.span);
            int64_t n = ev.as_int(rd.require(0), rd.span(0), "T.wait_wgmma count");
            if (n < 0) ev.fail(DiagKind::TypeMismatch, rd.span(0), {"`T.wait_wgmma` expects a pending-group count >= 0, got " + std::to_string(n)});
            return Value::none();
        });
}

}  // namespace tp::eval
