// Performance hints and thread-level helpers of TileLang that do not change what a kernel
// computes: T.set_max_nreg / T.disable_warp_group_reg_alloc (register budgets of warp
// specialised kernels), T.sync_threads (a block barrier) and T.sync_grid (a grid barrier, grid_sync.h).
// The hints are accepted with a remark, because our own passes decide register budgets; the
// block barrier is staged as one.
#include "eval/grid_sync.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

using Reg = std::vector<TileBuiltin>;

void add(Reg& r, std::string name, std::string sig, std::string doc, BuiltinFn fn) {
    r.push_back({{std::move(name), std::move(sig), std::move(doc), "tile op"}, std::move(fn)});
}

// A hint only changes how registers are split between warp groups, never a value, so the kernel
// stays correct without it; the remark says so at its line (`tilec compile --remarks`).
void hint_remark(Evaluator& ev, const std::string& what, Span span) {
    ev.diags.report(DiagKind::FastPathNotTaken, span,
                    {"`" + what + "`", "register budgets come from our own warp specialisation (setmaxnreg where it applies)",
                     "the kernel computes the same without it"});
}

}  // namespace

void register_tile_hints(std::vector<TileBuiltin>& r) {
    add(r, "set_max_nreg", "T.set_max_nreg(reg_count, is_inc)", "hint: the register budget of this warp group (a performance hint)",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.set_max_nreg", {"reg_count", "is_inc"});
            require_kernel(ev, "T.set_max_nreg", a.span);
            int64_t n = ev.as_int(rd.require(0), rd.span(0), "reg_count");
            if (n < 24 || n > 256 || n % 8 != 0)
                ev.fail(DiagKind::TypeMismatch, rd.span(0), {"`reg_count` must be a multiple of 8 in [24, 256], got " + std::to_string(n)});
            ev.as_int(rd.require(1), rd.span(1), "is_inc");
            hint_remark(ev, "T.set_max_nreg", a.span);
            return Value::none();
        });
    for (const char* name : {"disable_warp_group_reg_alloc", "no_set_max_nreg"})  // TileLang's one op, two names
        add(r, name, std::string("T.") + name + "()", "hint: keep the default register split between warp groups (a performance hint)",
            [name = std::string("T.") + name](Evaluator& ev, CallArgs& a) -> Value {
                ArgReader rd(ev, a, name, {});
                require_kernel(ev, name, a.span);
                hint_remark(ev, name, a.span);
                return Value::none();
            });
    // A grid-wide barrier: staged as a marker where the user wrote it; the launch is cut there
    // when its `T.Kernel` body ends (grid_sync.h).
    add(r, "sync_grid", "T.sync_grid()", "a barrier of all blocks of the grid: the code after it runs as a second launch of the same grid",
        [](Evaluator& ev, CallArgs& a) -> Value {
            ArgReader rd(ev, a, "T.sync_grid", {});
            require_kernel(ev, "T.sync_grid", a.span);
            if (ev.kernel->in_role) ev.fail(DiagKind::UnsupportedConstruct, a.span, {"T.sync_grid", " inside `with T.ws(...)`"});
            ev.stager.emit(grid_sync_marker(a.span));
            return Value::none();
        });
    add(r, "sync_threads", "T.sync_threads()", "a barrier of all threads of the block (__syncthreads)", [](Evaluator& ev, CallArgs& a) -> Value {
        ArgReader rd(ev, a, "T.sync_threads", {"barrier_id", "arrive_count"});
        require_kernel(ev, "T.sync_threads", a.span);
        // A named barrier (barrier_id, arrive_count): only the threads that reach it wait, for
        // `arrive_count` of them (whole warps, as bar.sync counts), so code under a branch on
        // the thread index can synchronise its threads without the rest of the block.
        const Value* id = rd.get(0) && rd.get(0)->kind != VK::None ? rd.get(0) : nullptr;
        const Value* count = rd.get(1) && rd.get(1)->kind != VK::None ? rd.get(1) : nullptr;
        if (id || count) {
            ir::Expr i = id ? ev.to_expr(*id, rd.span(0), "barrier_id") : ir::int_imm(0);
            if (!count)
                ev.fail(DiagKind::TypeMismatch, a.span, {"`T.sync_threads` with a barrier_id needs its arrive_count (the threads that meet there)"});
            ir::Expr n = ev.to_expr(*count, rd.span(1), "arrive_count");
            auto ci = ir::as_const_int(i), cn = ir::as_const_int(n);
            if (!ci || *ci < 2 || *ci > 15)
                ev.fail(DiagKind::TypeMismatch, id ? rd.span(0) : a.span,
                        {"`T.sync_threads` barrier_id must be a constant in 2..15 (0 and 1 are the block barriers of the generated code)"});
            if (cn && (*cn <= 0 || *cn % 32 != 0))
                ev.fail(DiagKind::TypeMismatch, rd.span(1),
                        {"`T.sync_threads` arrive_count must be a positive multiple of 32 (whole warps), got " + std::to_string(*cn)});
            ev.stager.emit(std::make_shared<ir::EvaluateNode>(ir::make_call("named_barrier", {i, n}, ir::DataType::void_(), a.span), a.span));
            return Value::none();
        }
        ev.stager.emit(std::make_shared<ir::EvaluateNode>(ir::make_call("__syncthreads", {}, ir::DataType::void_(), a.span), a.span));
        return Value::none();
    });
}

}  // namespace tp::eval
