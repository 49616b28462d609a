// Kernel factory evaluation: binds the chosen factory's parameters from -D values / fallbacks /
// defaults, runs it (both TileLang styles: returning an inner `@T.prim_func`, or the eager
// T.const / T.empty style) and assembles the PrimFunc. Finding factories is factory_scan.cpp.
#include <algorithm>

#include "eval/evaluator.h"
#include "eval/factory_internal.h"
#include "eval/interp.h"
#include "eval/tile_internal.h"
#include "frontend/parser.h"

namespace tp::eval {

// Parses a -D value: int, float, bool, None, dtype name, a Python literal, else a string.
Value parse_define(Evaluator& ev, const std::string& name, const std::string& text) {
    if (text == "True" || text == "true") return Value::boolean(true);
    if (text == "False" || text == "false") return Value::boolean(false);
    if (text == "None") return Value::none();
    try {
        size_t used = 0;
        long long v = std::stoll(text, &used, 0);
        if (used == text.size()) return Value::integer(v);
    } catch (...) {
    }
    try {
        size_t used = 0;
        double v = std::stod(text, &used);
        if (used == text.size()) return Value::floating(v);
    } catch (...) {
    }
    if (auto t = ir::DataType::parse(text)) return Value::dtype(*t);
    if (!text.empty() && (text[0] == '(' || text[0] == '[' || text[0] == '{' || text.rfind("T.", 0) == 0)) {
        auto file = SourceFile::from_string("-D " + name, text);
        DiagnosticEngine local(file);
        auto expr = frontend::parse_expression(file, local);
        if (!expr || local.has_errors()) ev.fail(DiagKind::BadDefine, {}, {name + "=" + text});
        return ev.eval(*expr, ev.module_scope());
    }
    return Value::str(text);
}

// Where the file's `# tileplay: args` / `cpu-args` line binds `name=text`, so an unusable
// value is reported at the header line that holds it; {} and "args" when none does.
static std::pair<Span, std::string> header_arg(const SourceFile* file, const std::string& name, const std::string& text) {
    const std::string want = name + "=" + text;
    for (uint32_t l = 1; file && l <= file->line_count(); ++l) {
        std::string_view line = file->line(l);
        size_t tag = line.find("tileplay:");
        if (tag == std::string_view::npos || line.substr(0, tag).find('#') == std::string_view::npos) continue;
        size_t kb = line.find_first_not_of(" \t", tag + 9);
        if (kb == std::string_view::npos) continue;
        size_t ke = line.find_first_of(" \t", kb);
        std::string_view key = line.substr(kb, ke == std::string_view::npos ? std::string_view::npos : ke - kb);
        if ((key != "args" && key != "cpu-args") || ke == std::string_view::npos) continue;
        for (size_t at = line.find(want, ke); at != std::string_view::npos; at = line.find(want, at + 1)) {
            size_t end = at + want.size();
            bool whole = (line[at - 1] == ' ' || line[at - 1] == '\t') &&
                         (end == line.size() || line[end] == ' ' || line[end] == '\t' || line[end] == '\r');
            if (!whole) continue;
            Span sp;
            sp.begin = {l, static_cast<uint32_t>(at + 1)};
            sp.end = {l, static_cast<uint32_t>(end + 1)};
            return {sp, std::string(key)};
        }
    }
    return {Span{}, "args"};
}

// A value from the sample header (a fallback define): errors point at the header line.
static Value parse_header_define(Evaluator& ev, const std::string& name, const std::string& text) {
    // Plain variables, not a structured binding: clang before 16 cannot capture one.
    std::pair<Span, std::string> where = header_arg(ev.module ? ev.module->file.get() : nullptr, name, text);
    const Span span = where.first;
    const std::string key = where.second;
    auto bad = [&] {
        ev.fail(DiagKind::InvalidSyntax, span, {"cannot parse `" + name + "=" + text + "` in the `# tileplay: " + key +
                                                    "` header line; expected NAME=VALUE with a Python value"});
    };
    if (text.empty()) bad();
    try {
        return parse_define(ev, name, text);
    } catch (const UserError&) {
        bad();
    }
    return Value::none();  // not reached: bad() throws
}

static bool valid_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Stages a @T.prim_func: its annotated parameters become the kernel's tensors/scalars.
static void stage_prim_func(Evaluator& ev, const FuncObj& f, KernelContext& kc) {
    auto scope = std::make_shared<Scope>(f.closure);
    for (const auto& a : f.args->args) {
        if (!a.annotation) ev.fail(DiagKind::TypeMismatch, a.span, {"kernel parameter `" + a.arg + "` needs a type such as `T.Tensor((M, N), dtype)`"});
        Value ann = ev.eval(*a.annotation, f.closure);
        ir::Param p;
        p.name = a.arg;
        if (ann.kind == VK::TypeObj && ann.as<TensorTypeObj>()->is_tensor) {
            auto* tt = ann.as<TensorTypeObj>();
            std::vector<ir::Expr> shape;
            for (const auto& d : tt->shape) {
                auto sh = ev.as_shape(d, a.annotation->span);
                shape.insert(shape.end(), sh.begin(), sh.end());
            }
            ev.check_shape_size(shape, a.annotation->span);
            p.buffer = std::make_shared<const ir::BufferNode>(a.arg, tt->dtype.value_or(ir::DataType::float32()), shape, ir::Scope::Global, a.span);
            scope->set(a.arg, Value::buffer(p.buffer));
        } else {
            ir::DataType t = ev.as_dtype(ann, a.annotation->span);
            p.var = std::make_shared<const ir::VarNode>(a.arg, t, ir::VarKind::Param, a.span);
            scope->set(a.arg, Value::expr(p.var));
        }
        kc.params.push_back(p);
    }
    kc.active = true;
    Flow fl = ev.exec_block(f.def->body, scope);
    (void)fl;
    kc.active = false;
}

EvalResult evaluate_kernel(const ast::ModulePtr& module, const EvalRequest& req, DiagnosticEngine& diags) {
    EvalResult result;
    auto factories = find_factories(*module);
    std::string file = module->file ? module->file->path() : "<input>";
    file = file.substr(file.find_last_of('/') + 1);  // the header line already has the full path
    if (factories.empty()) {
        diags.report(DiagKind::NoKernelFound, {}, {file});
        return result;
    }
    const FactoryInfo* chosen = &factories[0];
    if (!req.kernel.empty()) {
        chosen = nullptr;
        std::string names;
        for (const auto& f : factories) {
            if (f.name == req.kernel) chosen = &f;
            names += (names.empty() ? "`" : ", `") + f.name + "`";
        }
        if (!chosen) {
            std::vector<std::string> cands;
            for (const auto& f : factories) cands.push_back(f.name);
            diags.report(DiagKind::UnknownKernel, {}, {req.kernel, names});
            return result;
        }
    }
    result.factory = *chosen;
    const ast::FunctionDef* def = find_def(*module, chosen->name);
    TP_ICHECK(def, "factory without a definition");

    Evaluator ev(module, diags);
    ev.target = req.target;
    ev.max_steps = req.trace_step_limit;
    KernelContext kc;
    ev.kernel = &kc;
    try {
        // Which names -D may bind: the factory's non-tensor parameters and its T.const symbols.
        std::vector<std::string> bindable;
        for (const auto& p : chosen->params)
            if (p.kind != "tensor") bindable.push_back(p.name);
        std::map<std::string, Value> bound;
        for (const auto& [name, text] : req.defines) {
            if (!valid_identifier(name)) ev.fail(DiagKind::BadDefine, {}, {name + "=" + text});
            if (std::find(bindable.begin(), bindable.end(), name) == bindable.end()) {
                std::string list;
                for (const auto& b : bindable) list += (list.empty() ? "`" : ", `") + b + "`";
                ev.fail(DiagKind::UnknownParameter, def->span, {chosen->name, name, list.empty() ? "(none)" : list});
            }
            bound[name] = parse_define(ev, name, text);
        }
        for (const auto& [name, text] : req.fallback_defines)
            if (!bound.count(name) && std::find(bindable.begin(), bindable.end(), name) != bindable.end())
                bound[name] = parse_header_define(ev, name, text);

        // `@tilelang.jit(target="hip ...")`: a kernel written for AMD GPUs (its HIP intrinsics and
        // MFMA layouts have no CUDA lowering), refused before tracing with the target it needs.
        for (const auto& d : def->decorator_list) {
            auto* c = d->as<ast::Call>();
            if (!c || !is_jit(decorator_name(*d))) continue;
            for (const auto& kw : c->keywords) {
                if (kw.arg != "target") continue;
                Value v = ev.eval(*kw.value, ev.module_scope());
                if (v.kind != VK::Str) continue;
                const std::string t = to_str(v);
                if (t.rfind("hip", 0) == 0 || t.rfind("rocm", 0) == 0)
                    ev.fail(DiagKind::FeatureNeedsTarget, kw.value->span,
                            {"`@tilelang.jit(target=\"" + t + "\")`", "an AMD gfx target (HIP)", req.target});
            }
        }
        bool direct_prim = has_decorator(*def, is_prim);
        auto f = std::make_shared<FuncObj>();
        f->name = def->name;
        f->def = def;
        f->args = def->args.get();
        const ast::FunctionDef* outer = enclosing_def(*module, chosen->name);
        f->closure = outer ? enclosing_scope(ev, *outer, *def, bound) : ev.module_scope();
        f->span = def->span;
        for (const auto& d : def->args->defaults) f->defaults.push_back(ev.eval(*d, f->closure));
        for (const auto& d : def->args->kw_defaults) f->kw_defaults.push_back(d ? std::optional<Value>(ev.eval(*d, f->closure)) : std::nullopt);

        auto symbols = const_symbols(*def);
        for (const auto& s : symbols)
            if (bound.count(s)) kc.symbol_values[s] = bound[s];

        std::vector<std::string> missing;
        CallArgs args;
        args.span = def->span;
        args.func_span = def->span;
        if (!direct_prim) {
            for (const auto& p : chosen->params) {
                if (outer && !is_parameter_of(*def, p.name)) continue;  // the enclosing function's: in the closure
                if (std::find(symbols.begin(), symbols.end(), p.name) != symbols.end() &&
                    std::none_of(def->args->args.begin(), def->args->args.end(), [&](const ast::Arg& a) { return a.arg == p.name; }))
                    continue;
                if (p.kind == "tensor") {
                    args.kw.emplace_back(p.name, Value::none());
                    kc.pending_tensors.insert(p.name);
                } else if (bound.count(p.name)) {
                    args.kw.emplace_back(p.name, bound[p.name]);
                } else if (p.required) {
                    missing.push_back(p.name);
                }
            }
            args.kw_spans.assign(args.kw.size(), def->span);
        }
        if (!missing.empty()) {
            std::string list;
            for (const auto& m : missing) list += (list.empty() ? "`" : ", `") + m + "`";
            ev.fail(DiagKind::MissingParameter, def->span, {chosen->name, list});
        }

        ev.stager.push_frame();
        if (direct_prim) {
            stage_prim_func(ev, *f, kc);
        } else if (has_inner_prim_func(*def)) {
            Value r = ev.call_function(*f, args);
            if (r.kind != VK::Func || !r.as<FuncObj>()->is_prim_func)
                ev.fail(DiagKind::TypeMismatch, def->span, {"kernel factory `" + def->name + "` returned " + type_name(r) + "; return the `@T.prim_func` function"});
            stage_prim_func(ev, *r.as<FuncObj>(), kc);
        } else {
            kc.eager = true;
            kc.active = true;
            Value r = ev.call_function(*f, args);
            kc.active = false;
            // A factory whose @T.prim_func is made deeper down (an inner `kernel_func(...)`, or
            // another factory it returns the kernel of): stage what it returns.
            if (!kc.kernel_seen && r.kind == VK::Func && r.as<FuncObj>()->is_prim_func) {
                kc.eager = false;
                stage_prim_func(ev, *r.as<FuncObj>(), kc);
            }
        }
        ir::Stmt body = Stager::seal(ev.stager.pop_frame(), def->span);
        if (!kc.kernel_seen) ev.fail(DiagKind::BadKernelLaunch, def->span, {"kernel `" + def->name + "` has no `with T.Kernel(...)` block"});

        auto pf = std::make_shared<ir::PrimFunc>();
        pf->name = def->name;
        pf->body = body;
        pf->span = def->span;
        pf->params = kc.params;
        for (const auto& v : kc.symbolic) {
            ir::Param p;
            p.name = v->name;
            p.var = v;
            pf->params.push_back(p);
        }
        // T.alloc_global workspaces come last: out_idx counts only the signature's tensors.
        pf->params.insert(pf->params.end(), kc.workspaces.begin(), kc.workspaces.end());
        for (const auto& [view, base] : kc.aliases) pf->attrs["tp.alias." + view] = base;
        for (size_t i = 0; i < kc.imported_sources.size(); ++i) {
            const auto& [text, at] = kc.imported_sources[i];
            pf->attrs["tp.import_source." + std::to_string(i)] = text;
            pf->attrs["tp.import_source_at." + std::to_string(i)] = std::to_string(at.begin.line) + ":" + std::to_string(at.begin.col);
        }
        for (const auto& [name, v] : bound) {
            if (v.kind == VK::Int) pf->bound_params[name] = v.i;
            else if (v.kind == VK::Bool) pf->bound_params[name] = v.b;
        }
        // Decorator options of @tilelang.jit: out_idx and pass_configs.
        for (const auto& d : def->decorator_list) {
            auto* c = d->as<ast::Call>();
            if (!c || !is_jit(decorator_name(*d))) continue;
            for (const auto& kw : c->keywords) {
                if (kw.arg == "out_idx") {
                    Value v = ev.eval(*kw.value, ev.module_scope());
                    std::vector<Value> idx = v.is_seq() ? items_of(v) : std::vector<Value>{v};
                    std::string text;
                    for (const auto& i : idx) {
                        if (i.is_none()) continue;
                        int64_t k = ev.as_int(i, kw.value->span, "out_idx");
                        int64_t n = static_cast<int64_t>(pf->params.size() - kc.symbolic.size() - kc.workspaces.size());
                        if (k < 0) k += n;
                        if (k < 0 || k >= n)
                            ev.fail(DiagKind::TypeMismatch, kw.value->span, {"`out_idx` " + std::to_string(ev.as_int(i, kw.value->span, "out_idx")) +
                                                                              " is out of range for " + std::to_string(n) + " kernel parameter(s)"});
                        pf->params[static_cast<size_t>(k)].is_output = true;
                        text += (text.empty() ? "" : ",") + std::to_string(k);
                    }
                    pf->attrs["out_idx"] = text;
                } else if (kw.arg == "pass_configs") {
                    Value v = ev.eval(*kw.value, ev.module_scope());
                    if (v.kind != VK::Dict) continue;
                    for (const auto& [k, val] : v.as<DictObj>()->items) {
                        std::string key;
                        if (k.kind == VK::Enum) {
                            std::string n = k.as<EnumObj>()->name;
                            if (n.rfind("TL_", 0) == 0) n = n.substr(3);
                            for (auto& ch : n) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                            key = "tl." + n;
                        } else {
                            key = to_str(k);
                        }
                        std::string vs = val.kind == VK::Bool ? (val.b ? "true" : "false") : to_str(val);
                        pf->attrs[key] = vs;
                        if (key == "tl.enable_fast_math" && vs == "true") pf->attrs["fast_math"] = "true";
                    }
                }
            }
        }
        result.func = pf;
    } catch (const UserError& e) {
        diags.add(e.diag);
        result.func = nullptr;
    }
    return result;
}

}  // namespace tp::eval
