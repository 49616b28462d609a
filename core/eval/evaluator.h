// The trace-time evaluator: runs the Python subset kernel factories use and stages
// everything under `@T.prim_func` / `@tilelang.jit` bodies into Tile IR. Host code (imports of
// torch, argparse, `if __name__ == "__main__":`) is never executed.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "frontend/ast.h"
#include "ir/ir.h"
#include "tileplay/compiler.h"
#include "tileplay/diagnostics.h"

namespace tp::eval {

struct EvalRequest {
    std::string kernel;  // factory name; empty = the only / first factory
    // -D NAME=VALUE from the user (raw text); these win over header defaults.
    std::vector<std::pair<std::string, std::string>> defines;
    // Fallback values (e.g. the sample header's args) used only for parameters still unbound.
    std::vector<std::pair<std::string, std::string>> fallback_defines;
    std::string target = "sm_90";
    int64_t trace_step_limit = kDefaultTraceStepLimit;  // see CompileRequest
};

struct EvalResult {
    std::shared_ptr<const ir::PrimFunc> func;  // null on error
    FactoryInfo factory;
};

// Lists kernel factories (functions decorated with tilelang.jit / T.prim_func / autotune, or
// returning a T.prim_func) without executing anything.
std::vector<FactoryInfo> find_factories(const ast::Module& module);

// Evaluates the chosen factory with the bound parameters and returns its Tile IR.
// User errors are reported to diags (never thrown); InternalError may propagate.
EvalResult evaluate_kernel(const ast::ModulePtr& module, const EvalRequest& req, DiagnosticEngine& diags);

// The search space of an `@autotune(configs=...)` / `@tilelang.autotune(configs=...)` decorator
// on the chosen factory. `configs` may be a list of dicts, an expression building one
// (itertools.product, comprehensions, a `get_configs(M, N, K)` helper) or a callable that
// TileLang calls with the kernel's arguments. Names the factory's fixed parameters (from
// `defines` / `fallback_defines`) resolve to their bound values. Each config is a list of
// (parameter, value as -D text) in the dict's order.
struct AutotuneSpace {
    bool found = false;  // the factory has an autotune decorator with `configs`
    uint32_t line = 0;   // the decorator's line
    std::vector<std::vector<std::pair<std::string, std::string>>> configs;
};
AutotuneSpace evaluate_autotune_space(const ast::ModulePtr& module, const EvalRequest& req, DiagnosticEngine& diags);

}  // namespace tp::eval
