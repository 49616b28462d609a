// Statement execution: assignment (unpacking, buffer stores, let bindings of IR values),
// the statement dispatch, imports, functions, try, with T.Kernel. `if` / `for` / `while`
// live in eval_control.cpp.
#include <algorithm>

#include "eval/ended_loop_var.h"
#include "eval/interp.h"
#include "eval/tile_internal.h"

namespace tp::eval {

namespace {

bool cheap_expr(const ir::Expr& e) {
    return e->kind == ir::NodeKind::IntImm || e->kind == ir::NodeKind::FloatImm || e->kind == ir::NodeKind::Var ||
           e->kind == ir::NodeKind::StringImm;
}

// Index list of a subscript value: a tuple spreads into several indices.
std::vector<Value> index_list(const Value& idx) {
    if (idx.kind == VK::Tuple) return items_of(idx);
    return {idx};
}

}  // namespace

Value Evaluator::lookup(const std::string& name, const std::shared_ptr<Scope>& sc, Span span) {
    for (Scope* s = sc.get(); s; s = s->parent().get()) {
        if (!s->is_module() && std::find(s->globals.begin(), s->globals.end(), name) != s->globals.end()) break;
        if (s->is_module()) break;
        if (Value* v = s->find_local(name)) {
            if (uint32_t loop = ended_loop_line(*v))
                fail(DiagKind::UnknownName, span, {name, "; it was the variable of the kernel loop at line " + std::to_string(loop) +
                                                             ", which exists only inside the loop body"});
            return *v;
        }
    }
    bool found = false;
    Value g = global_in(globals_of(sc), name, span, &found);
    if (found) return g;
    Value b = builtin(name);
    if (!b.is_none()) return b;
    if (name == "None") return Value::none();
    std::string m = closest_match(name, visible_names(sc));
    fail(DiagKind::UnknownName, span, {name, m.empty() ? "" : "; did you mean `" + m + "`"});
}

void Evaluator::bind_name(const std::string& name, const Value& v, const std::shared_ptr<Scope>& sc, Span span) {
    if (std::find(sc->globals.begin(), sc->globals.end(), name) != sc->globals.end()) {
        globals_of(sc).scope->set(name, v);
        return;
    }
    if (std::find(sc->nonlocals.begin(), sc->nonlocals.end(), name) != sc->nonlocals.end()) {
        for (Scope* s = sc->parent().get(); s && !s->is_module(); s = s->parent().get())
            if (s->find_local(name)) { s->set(name, v); return; }
        fail(DiagKind::UnknownName, span, {name, "; `nonlocal` needs a binding in an enclosing function"});
    }
    sc->set(name, v);
}

void Evaluator::assign(const ast::Expr& target, const Value& v, const std::shared_ptr<Scope>& sc, Span vspan) {
    if (auto* n = target.as<ast::Name>()) {
        Value* cur = sc->find_local(n->id);
        // `x = value` on a T.alloc_var buffer stores into it (TileLang's scalar variables).
        if (cur && cur->kind == VK::Buffer && cur->as<BufferObj>()->b->scope == ir::Scope::Var && v.kind != VK::Buffer) {
            require_kernel(*this, n->id + " = ...", target.span);
            const ir::Buffer& b = cur->as<BufferObj>()->b;
            ir::Expr val = to_expr(v, vspan);
            if (!(val->dtype == b->dtype)) val = ir::make_cast(b->dtype, val, vspan);
            stager.emit(std::make_shared<ir::BufferStoreNode>(b, std::vector<ir::Expr>{ir::int_imm(0)}, val, target.span));
            return;
        }
        if (v.kind == VK::Expr && stager.in_kernel() && stager.has_frame() && module_eval_depth == 0 &&
            !cheap_expr(v.as<ExprObj>()->e)) {
            const ir::Expr& e = v.as<ExprObj>()->e;
            auto var = std::make_shared<const ir::VarNode>(n->id, e->dtype, ir::VarKind::Plain, target.span);
            stager.emit_let(var, e, target.span);
            bind_name(n->id, Value::expr(var), sc, target.span);
            return;
        }
        bind_name(n->id, v, sc, target.span);
        return;
    }
    if (target.kind == ast::ExprKind::Tuple || target.kind == ast::ExprKind::List) {
        const ast::ExprList& elts = target.kind == ast::ExprKind::Tuple ? target.as<ast::Tuple>()->elts : target.as<ast::List>()->elts;
        std::vector<Value> items = iterate(v, vspan);
        size_t star = elts.size();
        for (size_t i = 0; i < elts.size(); ++i)
            if (elts[i]->kind == ast::ExprKind::Starred) star = i;
        if (star == elts.size()) {
            if (items.size() != elts.size())
                fail(DiagKind::TypeMismatch, target.span, {"cannot unpack " + std::to_string(items.size()) + " value(s) into " +
                                                          std::to_string(elts.size()) + " target(s)"});
            for (size_t i = 0; i < elts.size(); ++i) assign(*elts[i], items[i], sc, vspan);
            return;
        }
        size_t after = elts.size() - star - 1;
        if (items.size() < star + after)
            fail(DiagKind::TypeMismatch, target.span, {"not enough values to unpack: expected at least " + std::to_string(star + after) +
                                                      ", got " + std::to_string(items.size())});
        for (size_t i = 0; i < star; ++i) assign(*elts[i], items[i], sc, vspan);
        std::vector<Value> mid(items.begin() + static_cast<long>(star), items.end() - static_cast<long>(after));
        assign(*elts[star]->as<ast::Starred>()->value, Value::list(std::move(mid)), sc, vspan);
        for (size_t i = 0; i < after; ++i) assign(*elts[star + 1 + i], items[items.size() - after + i], sc, vspan);
        return;
    }
    if (auto* s = target.as<ast::Subscript>()) {
        Value base = eval(*s->value, sc);
        Value idx = eval(*s->slice, sc);
        if (base.kind == VK::Buffer) {
            require_kernel(*this, "buffer store", target.span);
            const ir::Buffer& b = base.as<BufferObj>()->b;
            std::vector<Value> idxs = index_list(idx);
            if (idxs.size() != b->shape.size())
                fail(DiagKind::IndexCountMismatch, s->slice->span, {b->name, std::to_string(b->shape.size()), std::to_string(idxs.size())});
            std::vector<ir::Expr> ie;
            for (const auto& x : idxs) {
                if (x.kind == VK::Slice)
                    fail(DiagKind::UnsupportedConstruct, s->slice->span, {"slice assignment", "; use `T.copy` or `T.fill` for regions"});
                ie.push_back(to_expr(x, s->slice->span, "index"));
            }
            ir::Expr val = to_expr(v, vspan);
            if (!(val->dtype == b->dtype)) val = ir::make_cast(b->dtype, val, vspan);
            ir::Buffer real = b;
            view_element(*this, real, ie);
            stager.emit(std::make_shared<ir::BufferStoreNode>(real, std::move(ie), val, target.span));
            return;
        }
        if (base.kind == VK::List) {
            auto& items = items_of(base);
            int64_t i = as_int(idx, s->slice->span, "list index");
            if (i < 0) i += static_cast<int64_t>(items.size());
            if (i < 0 || i >= static_cast<int64_t>(items.size()))
                fail(DiagKind::PythonException, target.span, {"IndexError: list assignment index out of range"});
            items[static_cast<size_t>(i)] = v;
            return;
        }
        if (base.kind == VK::Dict) {
            if (!is_hashable(idx)) fail(DiagKind::TypeMismatch, s->slice->span, {"unhashable type: " + type_name(idx)});
            auto& d = *base.as<DictObj>();
            for (auto& e : d.items)
                if (values_equal(e.first, idx)) { e.second = v; return; }
            d.items.emplace_back(idx, v);
            return;
        }
        fail(DiagKind::TypeMismatch, target.span, {type_name(base) + " does not support item assignment"});
    }
    if (auto* st = target.as<ast::Starred>()) return assign(*st->value, v, sc, vspan);
    fail(DiagKind::UnsupportedConstruct, target.span, {"assignment to " + std::string(ast::expr_kind_name(target.kind)), " at trace time"});
}

Flow Evaluator::exec_block(const ast::StmtList& body, const std::shared_ptr<Scope>& sc) {
    for (const auto& s : body) {
        Flow f = exec(*s, sc);
        if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
}

static void exec_import(Evaluator& ev, const ast::Stmt& s, const std::shared_ptr<Scope>& sc) {
    if (auto* im = s.as<ast::Import>()) {
        for (const auto& a : im->names) {
            if (a.asname) {
                ev.bind_name(*a.asname, ev.module_value(a.name, s.span), sc, a.span);
            } else {
                std::string head = a.name.substr(0, a.name.find('.'));
                ev.bind_name(head, ev.module_value(head, s.span), sc, a.span);
            }
        }
        return;
    }
    auto* f = s.as<ast::ImportFrom>();
    // Star imports only bring host helpers (autotune, ...): nothing to load for them.
    if (std::all_of(f->names.begin(), f->names.end(), [](const ast::Alias& a) { return a.name == "*"; })) return;
    std::string from = f->module;
    if (f->level > 0) {
        // `from .quantization import f` in a package's module: relative to that package, as
        // Python resolves it (the package itself for its __init__, else the module's parent).
        const ModuleGlobals& home = ev.globals_of(sc);
        std::string base = home.name == "__main__" ? "" : home.name;
        for (int up = home.package ? 1 : 0; up < f->level && !base.empty(); ++up) {
            size_t dot = base.rfind('.');
            base = dot == std::string::npos ? "" : base.substr(0, dot);
        }
        if (base.empty())
            ev.fail(DiagKind::ImportFailed, s.span,
                    {std::string(static_cast<size_t>(f->level), '.') + f->module, home.name, "a relative import needs a package"});
        from = f->module.empty() ? base : base + "." + f->module;
    }
    Value mod = ev.module_value(from, s.span);
    bool user = mod.kind == VK::Module && mod.as<ModuleObj>()->mod == ModuleKind::User;
    for (const auto& a : f->names) {
        if (a.name == "*") continue;
        Value v;
        if (user) {
            // A name the evaluator cannot build (host code: torch tensors, devices) stays an
            // opaque host object, as it was before such modules were loaded: an error only where
            // a kernel uses it.
            const std::string& dotted = mod.as<ModuleObj>()->name;
            std::optional<Value> attr;
            try {
                attr = ev.user_module_attr(dotted, a.name, a.span);
            } catch (const UserError&) {
                auto host = std::make_shared<OpaqueObj>();
                host->what = dotted + "." + a.name;
                attr = Value::make(VK::Opaque, host);
            }
            if (!attr) ev.fail(DiagKind::UnknownName, a.span, {a.name, "; the module `" + dotted + "` does not define it"});
            v = *attr;
        } else if (mod.kind == VK::Module && mod.as<ModuleObj>()->mod != ModuleKind::Opaque) {
            auto attr = ev.module_attr(*mod.as<ModuleObj>(), a.name, a.span);
            if (attr) {
                v = *attr;
            } else if (mod.as<ModuleObj>()->mod == ModuleKind::TileLang) {
                // A name of tilelang.language's submodules that T does not define: host code (an
                // opaque object, an error only where a kernel uses it), not T itself.
                auto host = std::make_shared<OpaqueObj>();
                host->what = from + "." + a.name;
                v = Value::make(VK::Opaque, host);
            } else {
                v = ev.module_value(from + "." + a.name);
            }
        } else {
            v = ev.module_value(from + "." + a.name);  // a known name, else an opaque host object
        }
        ev.bind_name(a.asname ? *a.asname : a.name, v, sc, a.span);
    }
}

Flow Evaluator::exec(const ast::Stmt& s, const std::shared_ptr<Scope>& sc) {
    using K = ast::StmtKind;
    count_step(s.span);
    switch (s.kind) {
        case K::ExprStmt: {
            auto& e = static_cast<const ast::ExprStmt&>(s);
            if (e.value->kind == ast::ExprKind::Constant) return Flow::Normal;  // docstrings
            Value v = eval(*e.value, sc);
            if (v.kind == VK::Expr && v.as<ExprObj>()->e->kind == ir::NodeKind::Call && stager.in_kernel() && stager.has_frame())
                stager.emit(std::make_shared<ir::EvaluateNode>(v.as<ExprObj>()->e, s.span));
            return Flow::Normal;
        }
        case K::Assign: {
            auto& a = static_cast<const ast::Assign&>(s);
            if (a.targets.size() == 1 && a.targets[0]->kind == ast::ExprKind::Name && a.value->kind == ast::ExprKind::Call)
                name_hint = a.targets[0]->as<ast::Name>()->id;
            Value v = eval(*a.value, sc);
            name_hint.clear();
            for (const auto& t : a.targets) assign(*t, v, sc, a.value->span);
            return Flow::Normal;
        }
        case K::AugAssign: {
            auto& a = static_cast<const ast::AugAssign&>(s);
            Value rhs = eval(*a.value, sc);
            if (auto* sub = a.target->as<ast::Subscript>()) {
                Value base = eval(*sub->value, sc);
                Value idx = eval(*sub->slice, sc);
                Value cur = subscript(base, idx, a.target->span, sub->slice->span);
                Value nv = binary(a.op, cur, rhs, s.span);
                if (base.kind == VK::Buffer) {
                    require_kernel(*this, "buffer store", s.span);
                    const ir::Buffer& b = base.as<BufferObj>()->b;
                    std::vector<ir::Expr> ie;
                    for (const auto& x : index_list(idx)) ie.push_back(to_expr(x, sub->slice->span, "index"));
                    ir::Expr val = to_expr(nv, s.span);
                    if (!(val->dtype == b->dtype)) val = ir::make_cast(b->dtype, val, s.span);
                    ir::Buffer real = b;
                    view_element(*this, real, ie);
                    stager.emit(std::make_shared<ir::BufferStoreNode>(real, std::move(ie), val, s.span));
                    return Flow::Normal;
                }
                if (base.kind == VK::List && !is_ir(idx)) {
                    auto& items = items_of(base);
                    int64_t i = as_int(idx, sub->slice->span, "list index");
                    if (i < 0) i += static_cast<int64_t>(items.size());
                    items[static_cast<size_t>(i)] = nv;
                    return Flow::Normal;
                }
                if (base.kind == VK::Dict) {
                    for (auto& e : base.as<DictObj>()->items)
                        if (values_equal(e.first, idx)) { e.second = nv; return Flow::Normal; }
                }
                fail(DiagKind::TypeMismatch, s.span, {type_name(base) + " does not support item assignment"});
            }
            if (auto* n = a.target->as<ast::Name>()) {
                Value cur = lookup(n->id, sc, n->span);
                if (cur.kind == VK::List && (rhs.is_seq()) && a.op == ast::OperatorKind::Add) {
                    auto add = items_of(rhs);  // copy first: `x += x`
                    items_of(cur).insert(items_of(cur).end(), add.begin(), add.end());
                    return Flow::Normal;
                }
                assign(*a.target, binary(a.op, cur, rhs, s.span), sc, s.span);
                return Flow::Normal;
            }
            fail(DiagKind::UnsupportedConstruct, a.target->span, {"augmented assignment to " + std::string(ast::expr_kind_name(a.target->kind)), ""});
        }
        case K::AnnAssign: {
            auto& a = static_cast<const ast::AnnAssign&>(s);
            if (a.value) {
                if (a.target->kind == ast::ExprKind::Name && a.value->kind == ast::ExprKind::Call) name_hint = a.target->as<ast::Name>()->id;
                Value v = eval(*a.value, sc);
                name_hint.clear();
                assign(*a.target, v, sc, a.value->span);
                return Flow::Normal;
            }
            Value ann = eval(*a.annotation, sc);
            auto* n = a.target->as<ast::Name>();
            if (n && ann.kind == VK::TypeObj && ann.as<TensorTypeObj>()->is_tensor && kernel && kernel->eager) {
                // Eager style: `A: T.Tensor((M, K), dtype)` declares the kernel parameter A.
                auto* tt = ann.as<TensorTypeObj>();
                std::vector<ir::Expr> shape;
                for (const auto& d : tt->shape) {
                    auto sh = as_shape(d, a.annotation->span);
                    shape.insert(shape.end(), sh.begin(), sh.end());
                }
                check_shape_size(shape, a.annotation->span);
                auto buf = std::make_shared<const ir::BufferNode>(n->id, tt->dtype.value_or(ir::DataType::float32()), shape,
                                                                  ir::Scope::Global, s.span);
                ir::Param p;
                p.name = n->id;
                p.buffer = buf;
                kernel->params.push_back(p);
                kernel->pending_tensors.erase(n->id);
                sc->set(n->id, Value::buffer(buf));
            }
            return Flow::Normal;
        }
        case K::If: return exec_if(*this, static_cast<const ast::If&>(s), sc);
        case K::For: return exec_for(*this, static_cast<const ast::For&>(s), sc);
        case K::While: return exec_while(*this, static_cast<const ast::While&>(s), sc);
        case K::FunctionDef: {
            auto& f = static_cast<const ast::FunctionDef&>(s);
            bind_name(f.name, make_function(f, sc), sc, s.span);
            return Flow::Normal;
        }
        case K::ClassDef: {
            auto o = std::make_shared<OpaqueObj>();
            o->what = static_cast<const ast::ClassDef&>(s).name;
            bind_name(static_cast<const ast::ClassDef&>(s).name, Value::make(VK::Opaque, o), sc, s.span);
            return Flow::Normal;
        }
        case K::Return: {
            auto& r = static_cast<const ast::Return&>(s);
            return_value = r.value ? eval(*r.value, sc) : Value::none();
            return Flow::Return;
        }
        case K::Assert: {
            auto& a = static_cast<const ast::Assert&>(s);
            Value t = eval(*a.test, sc);
            if (is_ir(t) && !ir::as_const_int(to_expr(t, a.test->span))) {
                require_kernel(*this, "assert", s.span);
                std::string msg = a.msg ? to_str(eval(*a.msg, sc)) : std::string();
                stager.emit(std::make_shared<ir::AssertOpNode>(to_expr(t, a.test->span), msg, s.span));
                return Flow::Normal;
            }
            if (!as_bool(t, a.test->span, "assert")) {
                std::string msg = a.msg ? ": " + to_str(eval(*a.msg, sc)) : std::string();
                fail(DiagKind::AssertionFailed, a.test->span, {msg});
            }
            return Flow::Normal;
        }
        case K::Raise: {
            auto& r = static_cast<const ast::Raise&>(s);
            std::string msg = r.exc ? to_str(eval(*r.exc, sc)) : "re-raise";
            fail(DiagKind::PythonException, s.span, {msg});
        }
        case K::Pass: return Flow::Normal;
        case K::Break:
            if (stager.ir_loop_depth > 0 && python_loop_depth == 0) {
                stager.emit(std::make_shared<ir::BreakNode>(s.span));
                return Flow::Normal;
            }
            return Flow::Break;
        case K::Continue:
            if (stager.ir_loop_depth > 0 && python_loop_depth == 0)
                fail(DiagKind::UnsupportedConstruct, s.span, {"continue", " loop body; wrap the rest of the body in an `if`"});
            return Flow::Continue;
        case K::Global:
            for (const auto& n : static_cast<const ast::Global&>(s).names) sc->globals.push_back(n);
            return Flow::Normal;
        case K::Nonlocal:
            for (const auto& n : static_cast<const ast::Nonlocal&>(s).names) sc->nonlocals.push_back(n);
            return Flow::Normal;
        case K::Import: case K::ImportFrom: exec_import(*this, s, sc); return Flow::Normal;
        case K::Delete:
            for (const auto& t : static_cast<const ast::Delete&>(s).targets)
                if (auto* n = t->as<ast::Name>()) sc->erase(n->id);
            return Flow::Normal;
        case K::With:
            return exec_with(*this, static_cast<const ast::With&>(s), 0, sc);
        case K::Try: {
            auto& t = static_cast<const ast::Try&>(s);
            Flow fl;
            try {
                fl = exec_block(t.body, sc);
            } catch (const UserError& e) {
                // Only Python-level failures (raise/assert) are catchable, by a broad handler.
                bool handled = false;
                if (e.diag.kind == DiagKind::PythonException || e.diag.kind == DiagKind::AssertionFailed) {
                    for (const auto& h : t.handlers) {
                        if (!h.type || (h.type->as<ast::Name>() && h.type->as<ast::Name>()->id == "Exception")) {
                            fl = exec_block(h.body, sc);
                            handled = true;
                            break;
                        }
                    }
                }
                if (!handled) throw;
                Flow f2 = exec_block(t.finalbody, sc);
                return f2 != Flow::Normal ? f2 : fl;
            }
            if (fl == Flow::Normal) fl = exec_block(t.orelse, sc);
            Flow f2 = exec_block(t.finalbody, sc);
            return f2 != Flow::Normal ? f2 : fl;
        }
        default:
            fail(DiagKind::UnsupportedConstruct, s.span, {ast::stmt_kind_name(s.kind), " at trace time"});
    }
}

Flow exec_with(Evaluator& ev, const ast::With& w, size_t index, const std::shared_ptr<Scope>& sc) {
    const WithScope ws{w, index};
    Value ctx = ev.eval(*ws.item().context_expr, sc);
    if (ctx.kind == VK::Kernel) return exec_kernel_with(ev, ws, ctx, sc);
    if (ctx.kind == VK::Role) return exec_role_with(ev, ws, ctx, sc);
    if (is_attr_scope(ctx)) return exec_attr_with(ev, ws, ctx, sc);
    if (is_iket_range(ctx)) return exec_iket_range_with(ev, ws, ctx, sc);
    ev.fail(DiagKind::UnsupportedConstruct, ws.item().context_expr->span,
            {"with " + type_name(ctx), "; only `with T.Kernel(...)` and `with T.ws(...)` are staged"});
}

Flow exec_with_body(Evaluator& ev, const WithScope& w, const std::shared_ptr<Scope>& sc) {
    if (w.index + 1 < w.stmt.items.size()) return exec_with(ev, w.stmt, w.index + 1, sc);
    return ev.exec_block(w.stmt.body, sc);
}

}  // namespace tp::eval
