// global_layout: a `T.Layout` annotated on a global tensor (`T.annotate_layout({dQ: L})`) says
// where each logical element lives in the tensor's memory: element idx is stored at the
// row-major offset of L(idx) within L's output shape. Unlike a shared or fragment layout this is
// visible outside the kernel (another kernel that annotates the same layout reads it back), so
// every access of the tensor must go through it. This rewrite runs on the staged kernel body
// (before the interpreter and the passes see it): element accesses get their indices remapped,
// and tile ops that touch the tensor become T.Parallel nests of remapped element accesses.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tp::transform {

// A layout's forward map: one var per logical dim, one expression of them per output dim.
struct IndexMap {
    std::vector<ir::Var> vars;
    std::vector<ir::Expr> outputs;
    Span span;  // the T.Layout call
};

struct GlobalLayout {
    ir::Buffer buffer;  // a global tensor
    IndexMap map;
};

// A use of a laid-out tensor the rewrite cannot express, with the DSL span of the use.
struct GlobalLayoutError {
    Span span;
    std::string message;
};

// The extent of each output dim of `map` over the logical shape `shape` (each output's largest
// value plus one; its smallest must be 0), or an error naming the output it cannot bound.
std::optional<std::vector<ir::Expr>> layout_output_shape(const IndexMap& map, const std::vector<ir::Expr>& shape,
                                                         GlobalLayoutError* error);

// The kernel body with every access of each layout's buffer remapped; nullopt with `error` set
// when a use cannot be remapped (a T.gemm or T.reduce operand, a T.print of the whole tensor) or
// the layout's image does not fit the tensor.
std::optional<ir::Stmt> apply_global_layouts(const ir::Stmt& body, const std::vector<GlobalLayout>& layouts,
                                             GlobalLayoutError* error);

}  // namespace tp::transform
