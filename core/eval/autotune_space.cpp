// evaluate_autotune_space (see evaluator.h): evaluates the `configs=` argument of a factory's
// @autotune decorator with the trace-time evaluator, so search spaces written the way TileLang
// writes them (literal lists, itertools.product, comprehensions, get_configs() helpers,
// callables taking the kernel's arguments) load without Python.
#include <algorithm>

#include "eval/evaluator.h"
#include "eval/interp.h"
#include "frontend/parser.h"

namespace tp::eval {

namespace {

// A config value as -D text that reads back as the same value.
std::string define_text(const Value& v) {
    if (v.kind == VK::Str) return str_of(v);
    if (v.kind == VK::DType) return v.dt.name();
    return repr(v);
}

}  // namespace

AutotuneSpace evaluate_autotune_space(const ast::ModulePtr& module, const EvalRequest& req, DiagnosticEngine& diags) {
    AutotuneSpace space;
    auto factories = find_factories(*module);
    const FactoryInfo* chosen = factories.empty() || !req.kernel.empty() ? nullptr : &factories[0];
    for (const auto& f : factories)
        if (f.name == req.kernel) chosen = &f;
    if (!chosen) return space;
    const ast::FunctionDef* def = nullptr;
    for (const auto& s : module->body)
        if (auto* f = s->as<ast::FunctionDef>(); f && f->name == chosen->name) def = f;
    if (!def) return space;

    const ast::Call* deco = nullptr;
    const ast::Expr* configs = nullptr;
    for (const auto& d : def->decorator_list) {
        auto* c = d->as<ast::Call>();
        if (!c || !is_autotune(decorator_name(*d))) continue;
        for (const auto& kw : c->keywords)
            if (kw.arg == "configs") configs = kw.value.get();
        if (!configs && !c->args.empty()) configs = c->args[0].get();
        if (configs) {
            deco = c;
            break;
        }
    }
    if (!configs) return space;
    space.found = true;
    space.line = deco->span.begin.line;

    Evaluator ev(module, diags);
    ev.max_steps = req.trace_step_limit;
    ev.target = req.target;
    try {
        // The factory's fixed parameters are visible by name, as the kernel's arguments are
        // to a TileLang `configs` callable.
        auto scope = std::make_shared<Scope>(ev.module_scope());
        std::map<std::string, Value> fixed;
        for (const auto* list : {&req.defines, &req.fallback_defines})
            for (const auto& [name, text] : *list)
                if (!fixed.count(name)) fixed[name] = parse_define(ev, name, text);
        for (const auto& [name, v] : fixed) scope->set(name, v);

        Value v = ev.eval(*configs, scope);
        if (v.kind == VK::Func || v.kind == VK::Partial || v.kind == VK::Builtin) {
            CallArgs args;
            args.span = configs->span;
            args.func_span = configs->span;
            if (v.kind == VK::Func && v.as<FuncObj>()->args) {
                const ast::Arguments& fa = *v.as<FuncObj>()->args;
                for (const auto* group : {&fa.posonlyargs, &fa.args, &fa.kwonlyargs})
                    for (const auto& a : *group)
                        if (fixed.count(a.arg)) {
                            args.kw.emplace_back(a.arg, fixed[a.arg]);
                            args.kw_spans.push_back(configs->span);
                        }
            }
            v = ev.call(v, args);
        }
        if (v.kind != VK::List && v.kind != VK::Tuple)
            ev.fail(DiagKind::BadTuneSpace, configs->span,
                    {"`configs` is " + type_name(v) + "; give a list of dicts such as `[{\"block_M\": 64}, ...]`"});
        for (const Value& item : items_of(v)) {
            if (item.kind != VK::Dict)
                ev.fail(DiagKind::BadTuneSpace, configs->span,
                        {"a config is " + type_name(item) + " (" + repr(item) + "); each config must be a dict of parameter values"});
            std::vector<std::pair<std::string, std::string>> cfg;
            for (const auto& [k, val] : item.as<DictObj>()->items) {
                if (k.kind != VK::Str)
                    ev.fail(DiagKind::BadTuneSpace, configs->span,
                            {"config key " + repr(k) + " is not a string; keys name the factory's parameters"});
                cfg.emplace_back(str_of(k), define_text(val));
            }
            space.configs.push_back(std::move(cfg));
        }
        if (space.configs.empty())
            ev.fail(DiagKind::BadTuneSpace, configs->span, {"`configs` is empty; list at least one config"});
    } catch (const UserError& e) {
        diags.add(e.diag);
        space.configs.clear();
    }
    return space;
}

}  // namespace tp::eval
