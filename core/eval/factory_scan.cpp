// Kernel factory discovery: finds the functions a module's kernels come from (decorated with
// tilelang.jit / T.prim_func / autotune, or returning an inner @T.prim_func) and describes their
// parameters from the source alone, so tools can list kernels without running any Python.
#include <algorithm>

#include "eval/evaluator.h"
#include "eval/factory_internal.h"
#include "eval/interp.h"

namespace tp::eval {

std::string decorator_name(const ast::Expr& e) {
    const ast::Expr* x = &e;
    if (auto* c = x->as<ast::Call>()) x = c->func.get();
    std::string out;
    while (auto* a = x->as<ast::Attribute>()) {
        out = "." + a->attr + out;
        x = a->value.get();
    }
    if (auto* n = x->as<ast::Name>()) return n->id + out;
    return out;
}

bool is_autotune(const std::string& d) {
    return d == "autotune" || (d.size() > 9 && d.compare(d.size() - 9, 9, ".autotune") == 0);
}

namespace {

bool ends_with(const std::string& s, const std::string& t) { return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0; }

}  // namespace

bool is_jit(const std::string& d) { return d == "jit" || ends_with(d, ".jit") || ends_with(d, "lazy_jit"); }
// `T.prim_func` / `prim_func`, but not `simplify_prim_func`, a decorator over a whole factory.
bool is_prim(const std::string& d) { return d == "prim_func" || ends_with(d, ".prim_func"); }

bool has_decorator(const ast::FunctionDef& f, bool (*pred)(const std::string&)) {
    for (const auto& d : f.decorator_list)
        if (pred(decorator_name(*d))) return true;
    return false;
}

bool has_inner_prim_func(const ast::FunctionDef& f) {
    for (const auto& s : f.body)
        if (auto* inner = s->as<ast::FunctionDef>(); inner && has_decorator(*inner, is_prim)) return true;
    return false;
}

namespace {

std::string source_text(const ast::Module& m, Span s) {
    if (!m.file || !s.valid()) return {};
    size_t a = m.file->offset(s.begin), b = m.file->offset(s.end);
    return b > a ? m.file->text().substr(a, b - a) : std::string();
}

// The callee an annotation names: `T.Tensor` for `T.Tensor((M, K), dtype)` and for the
// subscript form `T.Tensor[(M, K), dtype]` alike.
std::string tensor_annotation_name(const ast::Expr& e) {
    if (auto* s = e.as<ast::Subscript>()) return decorator_name(*s->value);
    return decorator_name(e);
}

// `A: T.Tensor(...)` declarations (no value) at the top of an eager factory body.
std::vector<std::string> annotated_tensors(const ast::FunctionDef& f) {
    std::vector<std::string> out;
    for (const auto& s : f.body) {
        auto* a = s->as<ast::AnnAssign>();
        if (!a || a->value) continue;
        auto* n = a->target->as<ast::Name>();
        std::string ann = tensor_annotation_name(*a->annotation);
        if (n && (ends_with(ann, "Tensor") || ends_with(ann, "Buffer"))) out.push_back(n->id);
    }
    return out;
}

}  // namespace

// Names from `M, N = T.const("M, N")` (also T.dynamic / T.symbolic) in the factory body.
std::vector<std::string> const_symbols(const ast::FunctionDef& f) {
    std::vector<std::string> out;
    for (const auto& s : f.body) {
        auto* a = s->as<ast::Assign>();
        if (!a) continue;
        auto* c = a->value->as<ast::Call>();
        if (!c || c->args.empty()) continue;
        std::string fn = decorator_name(*c->func);
        if (!ends_with(fn, ".const") && !ends_with(fn, ".dynamic") && !ends_with(fn, ".symbolic")) continue;
        auto* k = c->args[0]->as<ast::Constant>();
        auto* text = k ? std::get_if<std::string>(&k->value) : nullptr;
        if (!text) continue;
        std::string cur;
        for (char ch : *text + ",") {
            if (ch == ',' || ch == ' ') {
                if (!cur.empty() && std::find(out.begin(), out.end(), cur) == out.end()) out.push_back(cur);
                cur.clear();
            } else {
                cur += ch;
            }
        }
    }
    return out;
}

namespace {

std::string kind_of(const ast::Arg& a, const ast::Expr* dflt, bool tensor) {
    if (tensor) return "tensor";
    if (a.annotation) {
        std::string n = tensor_annotation_name(*a.annotation);
        if (n == "int" || n == "float" || n == "bool" || n == "str") return n;
        if (ends_with(n, "dtype")) return "dtype";
        if (ends_with(n, "Tensor") || ends_with(n, "Buffer")) return "tensor";
    }
    if (dflt) {
        if (auto* c = dflt->as<ast::Constant>()) {
            if (std::holds_alternative<bool>(c->value)) return "bool";
            if (std::holds_alternative<int64_t>(c->value)) return "int";
            if (std::holds_alternative<double>(c->value)) return "float";
            if (auto* s = std::get_if<std::string>(&c->value)) return ir::DataType::parse(*s) ? "dtype" : "str";
        }
        if (auto* at = dflt->as<ast::Attribute>(); at && ir::DataType::parse(at->attr)) return "dtype";
    }
    return "any";
}

FactoryInfo describe(const ast::Module& m, const ast::FunctionDef& f) {
    FactoryInfo info;
    info.name = f.name;
    info.line = f.span.begin.line;
    info.is_autotune = has_decorator(f, is_autotune);
    auto tensors = annotated_tensors(f);
    std::vector<const ast::Arg*> pos;
    for (const auto& a : f.args->posonlyargs) pos.push_back(&a);
    for (const auto& a : f.args->args) pos.push_back(&a);
    size_t first_default = pos.size() - f.args->defaults.size();
    auto push = [&](const ast::Arg& a, const ast::Expr* d) {
        FactoryParam p;
        p.name = a.arg;
        bool tensor = std::find(tensors.begin(), tensors.end(), a.arg) != tensors.end();
        p.kind = kind_of(a, d, tensor);
        p.default_text = d ? source_text(m, d->span) : "";
        p.required = !d && p.kind != "tensor";
        info.params.push_back(p);
    };
    // A module-level @T.prim_func has tensor parameters only; nothing to bind.
    if (!has_decorator(f, is_prim)) {
        for (size_t i = 0; i < pos.size(); ++i) push(*pos[i], i >= first_default ? f.args->defaults[i - first_default].get() : nullptr);
        for (size_t i = 0; i < f.args->kwonlyargs.size(); ++i)
            push(f.args->kwonlyargs[i], i < f.args->kw_defaults.size() ? f.args->kw_defaults[i].get() : nullptr);
    }
    for (const auto& s : const_symbols(f)) {
        if (std::any_of(info.params.begin(), info.params.end(), [&](const FactoryParam& p) { return p.name == s; })) continue;
        FactoryParam p;
        p.name = s;
        p.kind = "int";
        p.required = false;  // left symbolic when unbound
        info.params.push_back(p);
    }
    return info;
}

}  // namespace

bool is_factory(const ast::FunctionDef& f) {
    return has_decorator(f, is_jit) || has_decorator(f, is_autotune) || has_decorator(f, is_prim) || has_inner_prim_func(f);
}

const ast::FunctionDef* enclosing_def(const ast::Module& m, const std::string& name) {
    size_t dot = name.find('.');
    if (dot == std::string::npos) return nullptr;
    for (const auto& s : m.body)
        if (auto* f = s->as<ast::FunctionDef>(); f && f->name == name.substr(0, dot)) return f;
    return nullptr;
}

const ast::FunctionDef* find_def(const ast::Module& m, const std::string& name) {
    if (const ast::FunctionDef* outer = enclosing_def(m, name)) {
        const std::string inner = name.substr(name.find('.') + 1);
        for (const auto& s : outer->body)
            if (auto* f = s->as<ast::FunctionDef>(); f && f->name == inner && is_factory(*f)) return f;
        return nullptr;
    }
    for (const auto& s : m.body)
        if (auto* f = s->as<ast::FunctionDef>(); f && f->name == name) return f;
    return nullptr;
}

std::vector<FactoryInfo> find_factories(const ast::Module& module) {
    std::vector<FactoryInfo> out, nested;
    for (const auto& s : module.body) {
        auto* f = s->as<ast::FunctionDef>();
        if (!f) continue;
        if (is_factory(*f)) {
            out.push_back(describe(module, *f));
            continue;
        }
        // Factories defined in a plain function's body (a script's `def get_best_config(M, N, K):
        // def kernel(block_M, ...): ...`): "outer.inner", taking the inner factory's parameters
        // and, optionally, the outer function's (the closure the inner one reads).
        for (const auto& t : f->body) {
            auto* g = t->as<ast::FunctionDef>();
            if (!g || !is_factory(*g)) continue;
            FactoryInfo info = describe(module, *g);
            info.name = f->name + "." + g->name;
            for (FactoryParam p : describe(module, *f).params) {
                if (std::any_of(info.params.begin(), info.params.end(), [&](const FactoryParam& q) { return q.name == p.name; })) continue;
                p.required = false;  // needed only where the inner factory reads it
                info.params.push_back(p);
            }
            nested.push_back(std::move(info));
        }
    }
    out.insert(out.end(), nested.begin(), nested.end());
    return out;
}

}  // namespace tp::eval
