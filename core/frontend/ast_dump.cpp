// ast::dump, statement half and layout. Without spans the dump is byte-for-byte what CPython
// 3.11's `ast.dump(ast.parse(src))` prints (tests compare against python3 as an oracle); with
// spans it is indented like `ast.dump(indent=2)` and every node carries `@line:col-line:col`.
// Expressions and patterns are rendered by ast_dump_expr.cpp.
#include "frontend/ast_dump_internal.h"

namespace tp::ast {

namespace dump_detail {

namespace {

DV type_params(const std::vector<TypeParam>& tps) {
    DV l = list();
    for (const auto& tp : tps) {
        DV d = mk(tp.kind == 0 ? "TypeVar" : tp.kind == 1 ? "ParamSpec" : "TypeVarTuple", tp.span);
        field(d, "name", atom(frontend::py_repr_str(tp.name)));
        field_opt(d, "bound", tp.bound.get());
        l.items.push_back(std::move(d));
    }
    return l;
}

DV stmt(const Stmt* s);

DV stmts(const StmtList& l) {
    DV d = list();
    for (const auto& s : l) d.items.push_back(stmt(s.get()));
    return d;
}

DV stmt(const Stmt* s) {
    const char* name = stmt_kind_name(s->kind);
    if (auto* f = s->as<FunctionDef>(); f && f->is_async) name = "AsyncFunctionDef";
    if (auto* f = s->as<For>(); f && f->is_async) name = "AsyncFor";
    if (auto* w = s->as<With>(); w && w->is_async) name = "AsyncWith";
    if (auto* t = s->as<Try>(); t && t->is_star) name = "TryStar";
    DV d = mk(name, s->span);
    switch (s->kind) {
        case StmtKind::FunctionDef: case StmtKind::AsyncFunctionDef: {
            auto* n = static_cast<const FunctionDef*>(s);
            field(d, "name", atom(frontend::py_repr_str(n->name)));
            field(d, "args", arguments(*n->args));
            field(d, "body", stmts(n->body));
            field(d, "decorator_list", exprs(n->decorator_list));
            field_opt(d, "returns", n->returns.get());
            if (!n->type_params.empty()) field(d, "type_params", type_params(n->type_params));
            break;
        }
        case StmtKind::ClassDef: {
            auto* n = s->as<ClassDef>();
            field(d, "name", atom(frontend::py_repr_str(n->name)));
            field(d, "bases", exprs(n->bases));
            field(d, "keywords", keywords(n->keywords));
            field(d, "body", stmts(n->body));
            field(d, "decorator_list", exprs(n->decorator_list));
            if (!n->type_params.empty()) field(d, "type_params", type_params(n->type_params));
            break;
        }
        case StmtKind::Return: field_opt(d, "value", s->as<Return>()->value.get()); break;
        case StmtKind::Delete: field(d, "targets", exprs(s->as<Delete>()->targets)); break;
        case StmtKind::Assign:
            field(d, "targets", exprs(s->as<Assign>()->targets));
            field(d, "value", expr(s->as<Assign>()->value.get()));
            break;
        case StmtKind::TypeAlias: {
            auto* n = s->as<TypeAlias>();
            field(d, "name", expr(n->name.get()));
            field(d, "type_params", type_params(n->type_params));
            field(d, "value", expr(n->value.get()));
            break;
        }
        case StmtKind::AugAssign: {
            auto* n = s->as<AugAssign>();
            field(d, "target", expr(n->target.get()));
            field(d, "op", mk(operator_name(n->op)));
            field(d, "value", expr(n->value.get()));
            break;
        }
        case StmtKind::AnnAssign: {
            auto* n = s->as<AnnAssign>();
            field(d, "target", expr(n->target.get()));
            field(d, "annotation", expr(n->annotation.get()));
            field_opt(d, "value", n->value.get());
            field(d, "simple", atom(n->simple ? "1" : "0"));
            break;
        }
        case StmtKind::For: case StmtKind::AsyncFor: {
            auto* n = static_cast<const For*>(s);
            field(d, "target", expr(n->target.get()));
            field(d, "iter", expr(n->iter.get()));
            field(d, "body", stmts(n->body));
            field(d, "orelse", stmts(n->orelse));
            break;
        }
        case StmtKind::While:
            field(d, "test", expr(s->as<While>()->test.get()));
            field(d, "body", stmts(s->as<While>()->body));
            field(d, "orelse", stmts(s->as<While>()->orelse));
            break;
        case StmtKind::If:
            field(d, "test", expr(s->as<If>()->test.get()));
            field(d, "body", stmts(s->as<If>()->body));
            field(d, "orelse", stmts(s->as<If>()->orelse));
            break;
        case StmtKind::With: case StmtKind::AsyncWith: {
            auto* n = static_cast<const With*>(s);
            DV items = list();
            for (const auto& w : n->items) {
                DV wi = mk("withitem", w.span);
                field(wi, "context_expr", expr(w.context_expr.get()));
                field_opt(wi, "optional_vars", w.optional_vars.get());
                items.items.push_back(std::move(wi));
            }
            field(d, "items", std::move(items));
            field(d, "body", stmts(n->body));
            break;
        }
        case StmtKind::Match: {
            auto* n = s->as<Match>();
            field(d, "subject", expr(n->subject.get()));
            DV cases = list();
            for (const auto& c : n->cases) {
                DV mc = mk("match_case", c.span);
                field(mc, "pattern", pattern(c.pattern.get()));
                field_opt(mc, "guard", c.guard.get());
                field(mc, "body", stmts(c.body));
                cases.items.push_back(std::move(mc));
            }
            field(d, "cases", std::move(cases));
            break;
        }
        case StmtKind::Raise:
            field_opt(d, "exc", s->as<Raise>()->exc.get());
            field_opt(d, "cause", s->as<Raise>()->cause.get());
            break;
        case StmtKind::Try: case StmtKind::TryStar: {
            auto* n = static_cast<const Try*>(s);
            field(d, "body", stmts(n->body));
            DV hs = list();
            for (const auto& h : n->handlers) {
                DV eh = mk("ExceptHandler", h.span);
                field_opt(eh, "type", h.type.get());
                if (h.name) field(eh, "name", atom(frontend::py_repr_str(*h.name)));
                field(eh, "body", stmts(h.body));
                hs.items.push_back(std::move(eh));
            }
            field(d, "handlers", std::move(hs));
            field(d, "orelse", stmts(n->orelse));
            field(d, "finalbody", stmts(n->finalbody));
            break;
        }
        case StmtKind::Assert:
            field(d, "test", expr(s->as<Assert>()->test.get()));
            field_opt(d, "msg", s->as<Assert>()->msg.get());
            break;
        case StmtKind::Import: case StmtKind::ImportFrom: {
            const std::vector<Alias>& names =
                s->kind == StmtKind::Import ? s->as<Import>()->names : s->as<ImportFrom>()->names;
            DV al = list();
            for (const auto& a : names) {
                DV x = mk("alias", a.span);
                field(x, "name", atom(frontend::py_repr_str(a.name)));
                if (a.asname) field(x, "asname", atom(frontend::py_repr_str(*a.asname)));
                al.items.push_back(std::move(x));
            }
            if (s->kind == StmtKind::ImportFrom) {
                auto* n = s->as<ImportFrom>();
                if (!n->module.empty()) field(d, "module", atom(frontend::py_repr_str(n->module)));
                field(d, "names", std::move(al));
                field(d, "level", atom(std::to_string(n->level)));
            } else {
                field(d, "names", std::move(al));
            }
            break;
        }
        case StmtKind::Global: field(d, "names", strs(s->as<Global>()->names)); break;
        case StmtKind::Nonlocal: field(d, "names", strs(s->as<Nonlocal>()->names)); break;
        case StmtKind::ExprStmt: field(d, "value", expr(s->as<ExprStmt>()->value.get())); break;
        case StmtKind::Pass: case StmtKind::Break: case StmtKind::Continue: break;
    }
    return d;
}

std::string span_text(const Span& s) {
    return "@" + std::to_string(s.begin.line) + ":" + std::to_string(s.begin.col) + "-" +
           std::to_string(s.end.line) + ":" + std::to_string(s.end.col);
}

// Python's ast.dump layout: a node whose fields are all simple and at most three prints on
// one line; with an indent every other field and list item gets its own line.
void format(const DV& v, int level, bool indent, bool spans, std::string& out, bool& simple) {
    std::string prefix, sep = ", ";
    if (indent) {
        ++level;
        prefix = "\n" + std::string(2 * level, ' ');
        sep = "," + prefix;
    }
    if (v.kind == DV::AtomK) {
        out += v.text;
        simple = true;
        return;
    }
    if (v.kind == DV::ListK) {
        simple = v.items.empty();
        if (v.items.empty()) {
            out += "[]";
            return;
        }
        out += "[" + prefix;
        for (size_t i = 0; i < v.items.size(); ++i) {
            if (i) out += sep;
            bool s = false;
            format(v.items[i], level, indent, spans, out, s);
        }
        out += "]";
        return;
    }
    // Whether the node fits one line is known before its fields are formatted (a simple field
    // is an atom, an empty list or a node without fields), so each field is written straight
    // into `out`: formatting them into strings first copied every subtree once per level
    // above it, seconds for a chain of 500 elifs.
    auto is_simple = [](const DV& f) { return f.kind == DV::AtomK || (f.kind == DV::ListK ? f.items.empty() : f.fields.empty()); };
    bool allsimple = true;
    for (const auto& f : v.fields) allsimple = allsimple && is_simple(f);
    const bool one_line = allsimple && v.fields.size() <= 3;
    out += v.text;
    if (spans && v.span.valid()) out += span_text(v.span);
    out += "(";
    if (!one_line) out += prefix;
    for (size_t i = 0; i < v.fields.size(); ++i) {
        if (i) out += one_line ? ", " : sep;
        out += v.names[i];
        out += '=';
        bool s = false;
        format(v.fields[i], level, indent, spans, out, s);
    }
    out += ")";
    simple = one_line && v.fields.empty();
}

}  // namespace

}  // namespace dump_detail

std::string dump(const Module& m, bool with_spans) {
    using namespace dump_detail;
    DV d = mk("Module");
    field(d, "body", stmts(m.body));
    field(d, "type_ignores", list());
    std::string out;
    bool simple = false;
    format(d, 0, with_spans, with_spans, out, simple);
    return out;
}

}  // namespace tp::ast
