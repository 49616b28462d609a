// Helpers shared by kernel factory discovery (factory_scan.cpp) and evaluation (factory.cpp):
// evaluation re-reads the chosen factory's decorators and T.const names the same way
// discovery described them, so both must use one definition.
#pragma once

#include <string>
#include <vector>

#include "frontend/ast.h"

namespace tp::eval {

// Decorator kinds by dotted name: `@tilelang.jit` / `@jit` / `lazy_jit`, `@T.prim_func`.
bool is_jit(const std::string& d);
bool is_prim(const std::string& d);
bool has_decorator(const ast::FunctionDef& f, bool (*pred)(const std::string&));
// A factory in the prim_func style: its body defines a `@T.prim_func` it returns.
bool has_inner_prim_func(const ast::FunctionDef& f);
// Names from `M, N = T.const("M, N")` (also T.dynamic / T.symbolic) in the factory body.
std::vector<std::string> const_symbols(const ast::FunctionDef& f);
// The module-level function named `name`, or nullptr.
const ast::FunctionDef* find_def(const ast::Module& m, const std::string& name);

}  // namespace tp::eval
