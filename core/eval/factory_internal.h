// Helpers shared by kernel factory discovery (factory_scan.cpp) and evaluation (factory.cpp):
// evaluation re-reads the chosen factory's decorators and T.const names the same way
// discovery described them, so both must use one definition.
#pragma once

#include <map>
#include <memory>
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
// A kernel factory: decorated @tilelang.jit / @autotune / @T.prim_func, or defining a @T.prim_func.
bool is_factory(const ast::FunctionDef& f);
// The module-level function named `name`, or for "outer.inner" the factory `inner` defined in
// the body of the module-level function `outer` (a nested factory); nullptr when there is none.
const ast::FunctionDef* find_def(const ast::Module& m, const std::string& name);
// For a nested factory's name "outer.inner", the module-level `outer`; nullptr otherwise.
const ast::FunctionDef* enclosing_def(const ast::Module& m, const std::string& name);

class Evaluator;
class Scope;
struct Value;
// Whether `name` is one of f's parameters.
bool is_parameter_of(const ast::FunctionDef& f, const std::string& name);
// The scope the nested factory `inner` is defined in (factory_nested.cpp): the outer
// function's parameters and locals before the def, with the bound values over them.
std::shared_ptr<Scope> enclosing_scope(Evaluator& ev, const ast::FunctionDef& outer, const ast::FunctionDef& inner,
                                       const std::map<std::string, Value>& bound);

}  // namespace tp::eval
