// Small helpers shared by the parser's expression and statement files (parser_expr.cpp,
// parser_atoms.cpp and the statement files). They live here rather than in each file's
// anonymous namespace so the split files keep one definition each. Internal to the front end.
#pragma once

#include <memory>
#include <string>

#include "frontend/parser_common.h"

namespace tp::frontend::parse_detail {

// A node whose span begins at `b`; the caller sets the end with Parser::finish.
template <class T> std::unique_ptr<T> node(SourceLoc b) {
    auto n = std::make_unique<T>();
    n->span.begin = b;
    return n;
}

// Whether `t` can begin an expression: decides where a trailing-comma tuple or a bare
// `yield` ends (defined in parser_expr.cpp).
bool starts_expression(const Token& t);

// What CPython calls an expression that cannot be a target ("cannot assign to <this>");
// defined in parser_atoms.cpp next to the target checks that use it most.
std::string target_description(const ast::Expr& e);

}  // namespace tp::frontend::parse_detail
