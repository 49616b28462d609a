// Statement frames, let folding and allocation hoisting for staged kernels.
#include "eval/staging.h"

#include "tileplay/diagnostics.h"

namespace tp::eval {

std::vector<ir::Stmt> Stager::pop_frame() {
    TP_ICHECK(!frames_.empty(), "pop_frame without a frame");
    std::vector<ir::Stmt> r = std::move(frames_.back());
    frames_.pop_back();
    return r;
}

void Stager::emit(ir::Stmt s) {
    TP_ICHECK(!frames_.empty(), "emit without a frame");
    if (s) frames_.back().push_back(std::move(s));
}

void Stager::emit_let(ir::Var var, ir::Expr value, Span span) {
    // A let with a null body is a placeholder: seal() gives it the statements that follow.
    emit(std::make_shared<ir::LetStmtNode>(std::move(var), std::move(value), nullptr, span));
}

ir::Stmt Stager::seal(std::vector<ir::Stmt> stmts, Span span) {
    std::vector<ir::Stmt> tail;
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) {
        const auto* let = (*it)->as<ir::LetStmtNode>();
        if (let && !let->body) {
            std::vector<ir::Stmt> body(tail.rbegin(), tail.rend());
            ir::Stmt b = body.empty() ? ir::make_seq({}, let->span) : ir::make_seq(std::move(body), let->span);
            tail.clear();
            tail.push_back(std::make_shared<ir::LetStmtNode>(let->var, let->value, b, let->span));
        } else {
            tail.push_back(*it);
        }
    }
    std::vector<ir::Stmt> ordered(tail.rbegin(), tail.rend());
    if (ordered.size() == 1) return ordered[0];
    return ir::make_seq(std::move(ordered), span);
}

void Stager::begin_kernel() {
    in_kernel_ = true;
    allocs_.clear();
}

void Stager::add_allocation(ir::Buffer buf, ir::Expr init, Span span) {
    allocs_.push_back({std::move(buf), std::move(init), span});
}

ir::Stmt Stager::end_kernel(ir::Stmt body) {
    for (auto it = allocs_.rbegin(); it != allocs_.rend(); ++it)
        body = std::make_shared<ir::AllocateNode>(it->buffer, it->init, body, it->span);
    allocs_.clear();
    in_kernel_ = false;
    return body;
}

}  // namespace tp::eval
