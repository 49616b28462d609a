// The scope a nested kernel factory ("outer.inner", factory_scan.cpp) is defined in: what its
// body reads of the function around it, rebuilt without running Python.
#include <algorithm>

#include "eval/factory_internal.h"
#include "eval/interp.h"

namespace tp::eval {

namespace {

bool takes(const ast::FunctionDef& f, const std::string& name) {
    auto has = [&](const std::vector<ast::Arg>& v) { return std::any_of(v.begin(), v.end(), [&](const ast::Arg& a) { return a.arg == name; }); };
    return has(f.args->posonlyargs) || has(f.args->args) || has(f.args->kwonlyargs);
}

// Binds the outer function's parameters from `bound`, else their defaults; false when one
// without a default is not given (its body before the inner def cannot be run then).
bool bind_outer_params(Evaluator& ev, const ast::FunctionDef& outer, const std::map<std::string, Value>& bound,
                       const std::shared_ptr<Scope>& sc) {
    bool complete = true;
    std::vector<const ast::Arg*> pos;
    for (const auto& a : outer.args->posonlyargs) pos.push_back(&a);
    for (const auto& a : outer.args->args) pos.push_back(&a);
    size_t first_default = pos.size() - outer.args->defaults.size();
    for (size_t i = 0; i < pos.size(); ++i) {
        if (auto it = bound.find(pos[i]->arg); it != bound.end()) sc->set(pos[i]->arg, it->second);
        else if (i >= first_default) sc->set(pos[i]->arg, ev.eval(*outer.args->defaults[i - first_default], ev.module_scope()));
        else complete = false;
    }
    for (size_t i = 0; i < outer.args->kwonlyargs.size(); ++i) {
        const auto& a = outer.args->kwonlyargs[i];
        const ast::Expr* d = i < outer.args->kw_defaults.size() ? outer.args->kw_defaults[i].get() : nullptr;
        if (auto it = bound.find(a.arg); it != bound.end()) sc->set(a.arg, it->second);
        else if (d) sc->set(a.arg, ev.eval(*d, ev.module_scope()));
        else complete = false;
    }
    return complete;
}

}  // namespace

bool is_parameter_of(const ast::FunctionDef& f, const std::string& name) { return takes(f, name); }

std::shared_ptr<Scope> enclosing_scope(Evaluator& ev, const ast::FunctionDef& outer, const ast::FunctionDef& inner,
                                       const std::map<std::string, Value>& bound) {
    auto sc = std::make_shared<Scope>(ev.module_scope());
    // With every parameter of the outer function known, its statements before the inner def run
    // (locals the inner factory reads: `dtype = T.float16`, helper functions). Without, only
    // what the caller bound is there, and a name the inner body reads that is missing is an
    // error at its use.
    if (bind_outer_params(ev, outer, bound, sc)) {
        for (const auto& s : outer.body) {
            if (s->as<ast::FunctionDef>() == &inner) break;
            if (ev.exec(*s, sc) != Flow::Normal) break;
        }
    }
    // Values the caller gave for names the inner factory does not take are the closure's.
    for (const auto& [name, v] : bound)
        if (!takes(inner, name)) sc->set(name, v);
    return sc;
}

}  // namespace tp::eval
