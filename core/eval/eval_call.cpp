// Calls (user functions with defaults, *args/**kwargs and closures, builtins, partials,
// dtype casts like `T.float32(x)`), function creation with decorators, and the lazily
// evaluated module globals.
#include <algorithm>

#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

Evaluator::Evaluator(ast::ModulePtr m, DiagnosticEngine& d) : module(std::move(m)), diags(d) {
    register_python_builtins(builtins_);
    main_.name = "__main__";
    main_.ast = module;
    index_module_globals(main_, true);
}

Value Evaluator::builtin(const std::string& name) {
    auto it = builtins_.find(name);
    return it == builtins_.end() ? Value::none() : it->second;
}

// Module-level names -> the statement that binds them. Bindings in `if __name__ == "__main__":`
// blocks count last; the first unconditional binding wins over ones nested in if/try blocks.
void index_module_globals(ModuleGlobals& m, bool is_main) {
    auto is_main_guard = [](const ast::If& s) {
        auto* c = s.test->as<ast::Compare>();
        if (!c) return false;
        auto* n = c->left->as<ast::Name>();
        return n && n->id == "__name__";
    };
    std::function<void(const ast::StmtList&, bool)> scan = [&](const ast::StmtList& body, bool nested) {
        for (const auto& sp : body) {
            const ast::Stmt* s = sp.get();
            std::vector<std::string> names;
            std::function<void(const ast::Expr&)> targets = [&](const ast::Expr& t) {
                if (auto* n = t.as<ast::Name>()) names.push_back(n->id);
                else if (auto* tu = t.as<ast::Tuple>()) for (const auto& e : tu->elts) targets(*e);
                else if (auto* li = t.as<ast::List>()) for (const auto& e : li->elts) targets(*e);
                else if (auto* st = t.as<ast::Starred>()) targets(*st->value);
            };
            switch (s->kind) {
                case ast::StmtKind::Assign: for (const auto& t : s->as<ast::Assign>()->targets) targets(*t); break;
                case ast::StmtKind::AnnAssign: if (s->as<ast::AnnAssign>()->value) targets(*s->as<ast::AnnAssign>()->target); break;
                case ast::StmtKind::FunctionDef: names.push_back(s->as<ast::FunctionDef>()->name); break;
                case ast::StmtKind::ClassDef: names.push_back(s->as<ast::ClassDef>()->name); break;
                case ast::StmtKind::Import:
                    for (const auto& a : s->as<ast::Import>()->names) names.push_back(a.asname ? *a.asname : a.name.substr(0, a.name.find('.')));
                    break;
                case ast::StmtKind::ImportFrom:
                    for (const auto& a : s->as<ast::ImportFrom>()->names) if (a.name != "*") names.push_back(a.asname ? *a.asname : a.name);
                    break;
                case ast::StmtKind::If:
                    if (!is_main_guard(*s->as<ast::If>())) {
                        scan(s->as<ast::If>()->body, true);
                        scan(s->as<ast::If>()->orelse, true);
                    }
                    break;
                case ast::StmtKind::Try: scan(s->as<ast::Try>()->body, true); break;
                default: break;
            }
            for (const auto& n : names) {
                auto it = m.defs.find(n);
                if (it == m.defs.end())
                    m.defs[n] = s;
                else if (!nested && m.nested_defs.count(n)) {
                    it->second = s;
                    m.nested_defs.erase(n);
                }
                if (nested && it == m.defs.end()) m.nested_defs.insert(n);
            }
        }
    };
    scan(m.ast->body, false);
    // A name bound only in the `__main__` block exists when the file runs as a script and that
    // block calls the factory (NSA's backward kernel reads the script's `H`): it resolves to that
    // binding, after every other one. An imported module is not `__main__`.
    if (!is_main) return;
    for (const auto& sp : m.ast->body)
        if (auto* i = sp->as<ast::If>(); i && is_main_guard(*i)) scan(i->body, true);
}

Value Evaluator::global_in(ModuleGlobals& m, const std::string& name, Span span, bool* found) {
    *found = true;
    if (Value* v = m.scope->find_local(name)) return *v;
    auto it = m.defs.find(name);
    if (it == m.defs.end() || m.evaluating.count(name)) {
        *found = false;
        return Value::none();
    }
    m.evaluating.insert(name);
    ++module_eval_depth;
    try {
        exec(*it->second, m.scope);
    } catch (...) {
        --module_eval_depth;
        m.evaluating.erase(name);
        throw;
    }
    --module_eval_depth;
    m.evaluating.erase(name);
    if (Value* v = m.scope->find_local(name)) return *v;
    *found = false;
    return Value::none();
}

ModuleGlobals& Evaluator::globals_of(const std::shared_ptr<Scope>& sc) {
    const Scope* s = sc.get();
    while (s && !s->is_module()) s = s->parent().get();
    auto it = module_by_scope_.find(s);
    return it == module_by_scope_.end() ? main_ : *it->second;
}

std::vector<std::string> Evaluator::visible_names(const std::shared_ptr<Scope>& sc) const {
    std::vector<std::string> out;
    const Scope* root = nullptr;
    for (Scope* s = sc.get(); s; s = s->parent().get()) {
        for (auto& n : s->names()) out.push_back(n);
        if (s->is_module()) root = s;
    }
    auto mod = module_by_scope_.find(root);
    for (const auto& [n, s] : (mod == module_by_scope_.end() ? main_ : *mod->second).defs) out.push_back(n);
    for (const auto& [n, v] : builtins_) out.push_back(n);
    return out;
}

Value Evaluator::make_function(const ast::FunctionDef& def, const std::shared_ptr<Scope>& sc) {
    auto f = std::make_shared<FuncObj>();
    f->name = def.name;
    f->def = &def;
    f->args = def.args.get();
    f->closure = sc;
    f->span = def.span;
    for (const auto& d : def.args->defaults) f->defaults.push_back(eval(*d, sc));
    for (const auto& d : def.args->kw_defaults) f->kw_defaults.push_back(d ? std::optional<Value>(eval(*d, sc)) : std::nullopt);
    Value v = Value::make(VK::Func, f);
    for (auto it = def.decorator_list.rbegin(); it != def.decorator_list.rend(); ++it) {
        Value dec = eval(**it, sc);
        const std::string* what = dec.kind == VK::Opaque ? &dec.as<OpaqueObj>()->what : nullptr;
        // `@simplify_prim_func` (tilelang.transform, bitblas.base) runs TVM's simplifier over the
        // prim_func the factory returns: the same kernel, so the factory stays a factory.
        if (what && (*what == "simplify_prim_func" || what->size() > 19 && what->compare(what->size() - 19, 19, ".simplify_prim_func") == 0))
            continue;
        if (dec.kind == VK::Opaque) {
            // A host decorator (torch.compile, ...): the function is host code from now on.
            auto o = std::make_shared<OpaqueObj>();
            o->what = def.name;
            return Value::make(VK::Opaque, o);
        }
        CallArgs args;
        args.span = (*it)->span;
        args.func_span = (*it)->span;
        args.pos.push_back(v);
        args.pos_spans.push_back(def.span);
        v = call(dec, args);
    }
    return v;
}

Value Evaluator::call_function(const FuncObj& f, CallArgs& args) {
    if (call_depth >= kMaxDepth) fail(DiagKind::EvalRecursionLimit, args.span, {std::to_string(kMaxDepth)});
    const ast::Arguments& a = *f.args;
    auto scope = std::make_shared<Scope>(f.closure);
    std::vector<const ast::Arg*> positional;
    for (const auto& p : a.posonlyargs) positional.push_back(&p);
    for (const auto& p : a.args) positional.push_back(&p);
    std::vector<bool> bound(positional.size(), false);
    size_t np = std::min(args.pos.size(), positional.size());
    for (size_t i = 0; i < np; ++i) {
        scope->set(positional[i]->arg, args.pos[i]);
        bound[i] = true;
    }
    if (args.pos.size() > positional.size()) {
        if (!a.vararg)
            fail(DiagKind::WrongArgCount, args.span, {f.name, std::to_string(positional.size()), std::to_string(args.pos.size())});
        scope->set(a.vararg->arg, Value::tuple(std::vector<Value>(args.pos.begin() + static_cast<long>(positional.size()), args.pos.end())));
    } else if (a.vararg) {
        scope->set(a.vararg->arg, Value::tuple({}));
    }
    std::shared_ptr<DictObj> extra;
    if (a.kwarg) extra = std::make_shared<DictObj>();
    std::vector<bool> kw_bound(a.kwonlyargs.size(), false);
    for (size_t k = 0; k < args.kw.size(); ++k) {
        const auto& [name, val] = args.kw[k];
        Span ks = k < args.kw_spans.size() ? args.kw_spans[k] : args.span;
        bool done = false;
        for (size_t i = a.posonlyargs.size(); i < positional.size() && !done; ++i) {
            if (positional[i]->arg != name) continue;
            if (bound[i]) fail(DiagKind::TypeMismatch, ks, {"`" + f.name + "` got multiple values for argument `" + name + "`"});
            scope->set(name, val);
            bound[i] = true;
            done = true;
        }
        for (size_t i = 0; i < a.kwonlyargs.size() && !done; ++i) {
            if (a.kwonlyargs[i].arg != name) continue;
            scope->set(name, val);
            kw_bound[i] = true;
            done = true;
        }
        if (done) continue;
        if (extra) {
            extra->items.emplace_back(Value::str(name), val);
            continue;
        }
        std::vector<std::string> cands;
        for (size_t i = a.posonlyargs.size(); i < positional.size(); ++i) cands.push_back(positional[i]->arg);
        for (const auto& k2 : a.kwonlyargs) cands.push_back(k2.arg);
        std::string m = closest_match(name, cands);
        fail(DiagKind::UnknownKeyword, ks, {f.name, name, m.empty() ? "" : "; did you mean `" + m + "`"});
    }
    size_t first_default = positional.size() - f.defaults.size();
    std::vector<std::string> missing;
    for (size_t i = 0; i < positional.size(); ++i) {
        if (bound[i]) continue;
        if (i >= first_default) scope->set(positional[i]->arg, f.defaults[i - first_default]);
        else missing.push_back(positional[i]->arg);
    }
    for (size_t i = 0; i < a.kwonlyargs.size(); ++i) {
        if (kw_bound[i]) continue;
        if (i < f.kw_defaults.size() && f.kw_defaults[i]) scope->set(a.kwonlyargs[i].arg, *f.kw_defaults[i]);
        else missing.push_back(a.kwonlyargs[i].arg);
    }
    if (!missing.empty()) {
        std::string list;
        for (const auto& m : missing) list += (list.empty() ? "`" : ", `") + m + "`";
        fail(DiagKind::TypeMismatch, args.span, {"`" + f.name + "` is missing required argument(s) " + list});
    }
    if (extra) scope->set(a.kwarg->arg, Value::make(VK::Dict, extra));

    ++call_depth;
    struct Restore {
        Evaluator& ev;
        Value saved;
        std::string hint;
        ~Restore() { --ev.call_depth; ev.return_value = saved; ev.name_hint = hint; }
    } restore{*this, return_value, name_hint};
    name_hint.clear();  // the hint names the direct T.alloc_* call only, not calls inside f
    int saved_loops = python_loop_depth;
    python_loop_depth = 0;  // `break` in the callee belongs to the callee's loops
    Value result;
    if (f.lambda) {
        result = eval(*f.lambda->body, scope);
    } else {
        Flow fl = exec_block(f.def->body, scope);
        if (fl == Flow::Return) result = return_value;
    }
    python_loop_depth = saved_loops;
    return result;
}

Value Evaluator::call(const Value& f, CallArgs& args) {
    switch (f.kind) {
        case VK::Builtin: return f.as<BuiltinObj>()->fn(*this, args);
        case VK::Func: {
            const FuncObj& fn = *f.as<FuncObj>();
            ModuleGlobals& home = globals_of(fn.closure);
            return &home == &main_ ? call_function(fn, args) : call_imported(fn, home, args);
        }
        case VK::Partial: {
            auto* p = f.as<PartialObj>();
            CallArgs merged;
            merged.span = args.span;
            merged.func_span = args.func_span;
            merged.pos = p->pos;
            merged.pos_spans.assign(p->pos.size(), args.span);
            merged.pos.insert(merged.pos.end(), args.pos.begin(), args.pos.end());
            merged.pos_spans.insert(merged.pos_spans.end(), args.pos_spans.begin(), args.pos_spans.end());
            merged.kw = p->kw;
            merged.kw_spans.assign(p->kw.size(), args.span);
            for (size_t i = 0; i < args.kw.size(); ++i) {
                auto it = std::find_if(merged.kw.begin(), merged.kw.end(), [&](auto& kv) { return kv.first == args.kw[i].first; });
                if (it != merged.kw.end()) it->second = args.kw[i].second;
                else {
                    merged.kw.push_back(args.kw[i]);
                    merged.kw_spans.push_back(i < args.kw_spans.size() ? args.kw_spans[i] : args.span);
                }
            }
            return call(p->func, merged);
        }
        case VK::DType: {
            // `T.float32(x)`: a cast (or a typed constant for Python numbers).
            ArgReader r(*this, args, "T." + f.dt.name(), {"value"});
            element_dtype(f.dt, args.func_span);
            const Value& v = r.require(0);
            if (v.is_number() && !is_ir(v)) {
                if (f.dt.is_float()) return Value::expr(ir::float_imm(v.kind == VK::Float ? v.f : static_cast<double>(as_int(v, r.span(0), "value")), f.dt, args.span));
                int64_t iv = v.kind == VK::Float ? static_cast<int64_t>(v.f) : as_int(v, r.span(0), "value");
                return Value::expr(ir::int_imm(iv, f.dt, args.span));
            }
            return Value::expr(ir::make_cast(f.dt, to_expr(v, r.span(0)), args.span));
        }
        case VK::TypeObj:
            // `T.dtype("float16")` / `T.dtype(T.uint)`: TileLang's dtype constructor, the dtype itself.
            if (f.as<TensorTypeObj>()->type_name == "dtype") {
                ArgReader r(*this, args, "T.dtype", {"value"});
                return Value::dtype(dtype_value(r.require(0), r.span(0)));
            }
            fail(DiagKind::TypeMismatch, args.func_span, {type_name(f) + " is not callable"});
        case VK::Opaque:
            if (auto v = call_host_shim(*this, f.as<OpaqueObj>()->what, args)) return *v;
            fail(DiagKind::UnsupportedConstruct, args.func_span, {f.as<OpaqueObj>()->what, "; it is host code the kernel evaluator does not run"});
        default:
            fail(DiagKind::TypeMismatch, args.func_span, {type_name(f) + " is not callable"});
    }
}

}  // namespace tp::eval
