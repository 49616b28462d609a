// Compound statements whose test or iterable decides at trace time whether they fold away
// (a Python loop or branch, run now) or are staged as IR (an `if` / `while` on a kernel
// runtime value, a `for` over a kernel loop spec). Called from Evaluator::exec.
#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

std::pair<Flow, std::vector<ir::Stmt>> stage_ir_loop_body(Evaluator& ev, const ast::StmtList& body, const std::shared_ptr<Scope>& sc) {
    ev.stager.push_frame();
    ++ev.stager.ir_loop_depth;
    int saved = ev.python_loop_depth;
    ev.python_loop_depth = 0;
    Flow fl = ev.exec_block(body, sc);
    ev.python_loop_depth = saved;
    --ev.stager.ir_loop_depth;
    return {fl, ev.stager.pop_frame()};
}

Flow exec_for(Evaluator& ev, const ast::For& f, const std::shared_ptr<Scope>& sc) {
    Value it = ev.eval(*f.iter, sc);
    if (it.kind == VK::LoopSpec) return exec_ir_for(ev, f, *it.as<LoopSpecObj>(), sc);
    if (it.kind == VK::Range && (ev.stager.in_kernel() && ev.module_eval_depth == 0)) {
        Value loop = range_as_loop(ev, *it.as<RangeObj>(), f.iter->span);
        return exec_ir_for(ev, f, *loop.as<LoopSpecObj>(), sc);
    }
    ++ev.python_loop_depth;
    for (const auto& item : ev.iterate(it, f.iter->span)) {
        ev.assign(*f.target, item, sc, f.iter->span);
        Flow fl = ev.exec_block(f.body, sc);
        if (fl == Flow::Break || fl == Flow::Return) {
            --ev.python_loop_depth;
            return fl == Flow::Break ? Flow::Normal : fl;
        }
    }
    --ev.python_loop_depth;
    return ev.exec_block(f.orelse, sc);
}

Flow exec_if(Evaluator& ev, const ast::If& s, const std::shared_ptr<Scope>& sc) {
    Value t = ev.eval(*s.test, sc);
    if (!ev.is_ir(t)) return ev.exec_block(ev.truthy(t, s.test->span) ? s.body : s.orelse, sc);
    ir::Expr c = ev.to_expr(t, s.test->span);
    if (auto k = ir::as_const_int(c)) return ev.exec_block(*k ? s.body : s.orelse, sc);
    require_kernel(ev, "if", s.span);
    auto branch = [&](const ast::StmtList& body) -> ir::Stmt {
        if (body.empty()) return nullptr;
        ev.stager.push_frame();
        Flow fl = ev.exec_block(body, sc);
        auto stmts = ev.stager.pop_frame();
        if (fl == Flow::Return) ev.fail(DiagKind::UnsupportedConstruct, s.span, {"return", " under an `if` on a kernel runtime value"});
        if (fl == Flow::Continue) ev.fail(DiagKind::UnsupportedConstruct, s.span, {"continue", " under an `if` on a kernel runtime value"});
        if (fl == Flow::Break)
            ev.fail(DiagKind::UnsupportedConstruct, s.span, {"break", " of a trace-time loop under an `if` on a kernel runtime value"});
        return Stager::seal(std::move(stmts), s.span);
    };
    ir::Stmt then_s = branch(s.body);
    ir::Stmt else_s = branch(s.orelse);
    if (!then_s) then_s = ir::make_seq({}, s.span);
    ev.stager.emit(std::make_shared<ir::IfThenElseNode>(c, then_s, else_s, s.span));
    return Flow::Normal;
}

Flow exec_while(Evaluator& ev, const ast::While& w, const std::shared_ptr<Scope>& sc) {
    Value t = ev.eval(*w.test, sc);
    if (ev.is_ir(t) && !ir::as_const_int(ev.to_expr(t, w.test->span))) {
        require_kernel(ev, "while", w.span);
        auto [fl, stmts] = stage_ir_loop_body(ev, w.body, sc);
        if (fl == Flow::Return || fl == Flow::Continue)
            ev.fail(DiagKind::UnsupportedConstruct, w.span, {fl == Flow::Return ? "return" : "continue", " in a `while` on a kernel runtime value"});
        ev.stager.emit(std::make_shared<ir::WhileNode>(ev.to_expr(t, w.test->span), Stager::seal(std::move(stmts), w.span), w.span));
        return Flow::Normal;
    }
    constexpr int64_t kMaxIterations = 1000000;
    ++ev.python_loop_depth;
    for (int64_t n = 0; ev.truthy(t, w.test->span); ++n) {
        if (n >= kMaxIterations)
            ev.fail(DiagKind::UnsupportedConstruct, w.span, {"while", "; the trace-time loop ran more than 1000000 iterations"});
        Flow fl = ev.exec_block(w.body, sc);
        if (fl == Flow::Break || fl == Flow::Return) {
            --ev.python_loop_depth;
            return fl == Flow::Break ? Flow::Normal : fl;
        }
        t = ev.eval(*w.test, sc);
    }
    --ev.python_loop_depth;
    return ev.exec_block(w.orelse, sc);
}

}  // namespace tp::eval
