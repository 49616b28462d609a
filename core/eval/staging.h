// The statement builder behind staging: a stack of statement frames (one per IR loop,
// branch and kernel body), hoisted allocations of the current kernel, and the LetStmt
// folding that turns `x = expr` inside a kernel into a scoped binding.
#pragma once

#include <vector>

#include "ir/ir.h"

namespace tp::eval {

class Stager {
public:
    // Frames: every nested IR body collects its statements in its own frame.
    void push_frame() { frames_.emplace_back(); }
    std::vector<ir::Stmt> pop_frame();
    bool has_frame() const { return !frames_.empty(); }
    void emit(ir::Stmt s);
    // `x = expr` inside a kernel: binds var for the rest of the current frame.
    void emit_let(ir::Var var, ir::Expr value, Span span);
    // Turns a frame's statements into one statement, nesting the statements after each
    // pending let into its body.
    static ir::Stmt seal(std::vector<ir::Stmt> stmts, Span span);

    // Kernel: at most one active; allocations inside it are hoisted to its top.
    bool in_kernel() const { return in_kernel_; }
    void begin_kernel();
    // Wraps the kernel body in the hoisted allocations (program order, outermost first).
    ir::Stmt end_kernel(ir::Stmt body);
    void add_allocation(ir::Buffer buf, ir::Expr init, Span span);

    // Depth of IR loops currently open (break/continue target IR or Python loops).
    int ir_loop_depth = 0;

private:
    struct Alloc {
        ir::Buffer buffer;
        ir::Expr init;
        Span span;
    };
    std::vector<std::vector<ir::Stmt>> frames_;
    std::vector<Alloc> allocs_;
    bool in_kernel_ = false;
};

}  // namespace tp::eval
