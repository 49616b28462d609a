// Shared by the evaluator unit tests (test_eval*.cpp): trace a kernel source through the
// parser and evaluator, read its first error, find a statement kind in the staged IR.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "eval/evaluator.h"
#include "frontend/parser.h"
#include "ir/ir.h"

namespace tp::eval_test {

struct Traced {
    std::shared_ptr<const ir::PrimFunc> func;
    std::vector<Diagnostic> diags;
    std::string ir;
    std::vector<FactoryInfo> factories;
};

inline Traced trace(const std::string& src, std::vector<std::pair<std::string, std::string>> defines = {}, std::string kernel = "") {
    Traced t;
    auto file = SourceFile::from_string("test.py", src);
    DiagnosticEngine diags(file);
    auto mod = frontend::parse_module(file, diags);
    if (mod) {
        t.factories = eval::find_factories(*mod);
        eval::EvalRequest req;
        req.kernel = kernel;
        req.defines = std::move(defines);
        t.func = eval::evaluate_kernel(mod, req, diags).func;
        if (t.func) t.ir = ir::print(*t.func);
    }
    t.diags = diags.take();
    return t;
}

inline std::string first_error(const Traced& t) { return t.diags.empty() ? "" : std::string(diag_info(t.diags[0].kind).name) + ": " + t.diags[0].message; }

// Finds the first statement of a kind anywhere in the body.
inline const ir::StmtNode* find(const ir::Stmt& s, ir::NodeKind k) {
    if (!s) return nullptr;
    if (s->kind == k) return s.get();
    if (auto* q = s->as<ir::SeqStmtNode>()) {
        for (const auto& x : q->seq)
            if (auto* r = find(x, k)) return r;
    } else if (auto* f = s->as<ir::ForNode>()) return find(f->body, k);
    else if (auto* a = s->as<ir::AllocateNode>()) return find(a->body, k);
    else if (auto* l = s->as<ir::LetStmtNode>()) return find(l->body, k);
    else if (auto* kl = s->as<ir::KernelLaunchNode>()) return find(kl->body, k);
    else if (auto* i = s->as<ir::IfThenElseNode>()) {
        if (auto* r = find(i->then_case, k)) return r;
        return find(i->else_case, k);
    }
    return nullptr;
}

}  // namespace tp::eval_test
