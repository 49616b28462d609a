// What an integer condition does over a whole box of loop variables (a
// T.Parallel nest's iteration space, each variable from 0 to its extent): when
// the condition is built from comparisons of expressions affine in those
// variables (and anything else, which is the same in every iteration),
// `holds_everywhere` gives the block-uniform expression that is true exactly
// when it holds at every point. Passes use it to skip a mask nest on the tiles
// the mask does not touch (a causal mask off the diagonal) and to reason about
// masks statically.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "ir/ir.h"

namespace tp::transform {

// Loop variable -> extent (the variable runs over [0, extent)).
using Box = std::map<const ir::VarNode*, int64_t>;

// e as rest + sum(coef[v] * v) with `rest` free of the box's variables; nullopt
// when e is not affine in them (a product of two of them, a division, a load
// indexed by one, ...).
struct AffineForm {
    std::map<const ir::VarNode*, int64_t> coef;
    ir::Expr rest;
};
std::optional<AffineForm> affine_in(const ir::Expr& e, const Box& box);

// True when e mentions a variable of the box.
bool uses_box(const ir::Expr& e, const Box& box);

// A condition free of the box's variables that holds exactly when `cond` holds
// at every point of the box; null when the form of `cond` is not one this can
// decide (then callers assume nothing). Conjunctions, negations and <, <=, >,
// >= of affine integer expressions.
ir::Expr holds_everywhere(const ir::Expr& cond, const Box& box);

// e with each variable of `values` replaced by its expression (LetStmt bindings
// inlined).
ir::Expr substitute(const ir::Expr& e, const std::map<const ir::VarNode*, ir::Expr>& values);

// Structural equality: the same constants, casts, arithmetic and loads over the same variable
// nodes and buffers. Anything else (calls, selects, unary operators) compares unequal, which
// only costs the callers a rewrite they could have made.
bool same_expr(const ir::Expr& a, const ir::Expr& b);

// `for i, j, ... in T.Parallel(...)` from 0 with constant extents, around
// scalar bindings
// (`q_idx = ...`) and one store: the shape a mask or an element-wise tile
// update takes.
struct ParallelNest {
    std::vector<const ir::ForNode*> loops;     // outermost first
    std::vector<const ir::LetStmtNode*> lets;  // outermost first
    const ir::BufferStoreNode* store = nullptr;
    Box box;
    std::map<const ir::VarNode*, ir::Expr> bindings;  // each let's value, earlier lets inlined
    // Whether the store writes element (v0, v1, ...) of its buffer, one loop
    // variable per dimension in order, over the buffer's whole shape.
    bool stores_whole_buffer() const;
};
std::optional<ParallelNest> match_parallel_nest(const ir::Stmt& s);
// The nest's loops and lets around another store.
ir::Stmt rebuild(const ParallelNest& nest, ir::Stmt store);

}  // namespace tp::transform
