// AST name tables and ast::dump. Without spans the dump is byte-for-byte what CPython 3.11's
// `ast.dump(ast.parse(src))` prints (tests compare against python3 as an oracle); with spans
// it is indented like `ast.dump(indent=2)` and every node carries `@line:col-line:col`.
#include <charconv>
#include <cmath>

#include "frontend/ast.h"
#include "frontend/parser_common.h"

namespace tp::ast {

const char* expr_kind_name(ExprKind k) {
    static const char* const kNames[] = {
        "BoolOp", "NamedExpr", "BinOp", "UnaryOp", "Lambda", "IfExp", "Dict", "Set", "ListComp", "SetComp",
        "DictComp", "GeneratorExp", "Await", "Yield", "YieldFrom", "Compare", "Call", "FormattedValue",
        "JoinedStr", "Constant", "Attribute", "Subscript", "Starred", "Name", "List", "Tuple", "Slice"};
    return kNames[static_cast<int>(k)];
}

const char* stmt_kind_name(StmtKind k) {
    static const char* const kNames[] = {
        "FunctionDef", "AsyncFunctionDef", "ClassDef", "Return", "Delete", "Assign", "TypeAlias", "AugAssign",
        "AnnAssign", "For", "AsyncFor", "While", "If", "With", "AsyncWith", "Match", "Raise", "Try", "TryStar",
        "Assert", "Import", "ImportFrom", "Global", "Nonlocal", "Expr", "Pass", "Break", "Continue"};
    return kNames[static_cast<int>(k)];
}

const char* operator_symbol(OperatorKind k) {
    static const char* const kSyms[] = {"+", "-", "*", "@", "/", "%", "**", "<<", ">>", "|", "^", "&", "//"};
    return kSyms[static_cast<int>(k)];
}

const char* unaryop_symbol(UnaryOpKind k) {
    static const char* const kSyms[] = {"~", "not", "+", "-"};
    return kSyms[static_cast<int>(k)];
}

const char* cmpop_symbol(CmpOpKind k) {
    static const char* const kSyms[] = {"==", "!=", "<", "<=", ">", ">=", "is", "is not", "in", "not in"};
    return kSyms[static_cast<int>(k)];
}

namespace {

const char* operator_name(OperatorKind k) {
    static const char* const kNames[] = {"Add", "Sub", "Mult", "MatMult", "Div", "Mod", "Pow",
                                         "LShift", "RShift", "BitOr", "BitXor", "BitAnd", "FloorDiv"};
    return kNames[static_cast<int>(k)];
}
const char* unaryop_name(UnaryOpKind k) {
    static const char* const kNames[] = {"Invert", "Not", "UAdd", "USub"};
    return kNames[static_cast<int>(k)];
}
const char* cmpop_name(CmpOpKind k) {
    static const char* const kNames[] = {"Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot", "In", "NotIn"};
    return kNames[static_cast<int>(k)];
}
const char* ctx_name(ExprContext c) { return c == ExprContext::Load ? "Load" : c == ExprContext::Store ? "Store" : "Del"; }

// A generic rendering tree: a node with named fields, a list, or an already-printed atom.
struct DV {
    enum Kind { NodeK, ListK, AtomK } kind = AtomK;
    std::string text;  // class name or atom text
    Span span;
    std::vector<const char*> names;  // field names, parallel to fields
    std::vector<DV> fields;
    std::vector<DV> items;
};

DV atom(std::string s) {
    DV d;
    d.text = std::move(s);
    return d;
}
DV mk(const char* name, Span span = {}) {
    DV d;
    d.kind = DV::NodeK;
    d.text = name;
    d.span = span;
    return d;
}
DV list() {
    DV d;
    d.kind = DV::ListK;
    return d;
}

std::string constant_repr(const ConstantValue& v) {
    using frontend::py_repr_str;
    if (std::holds_alternative<NoneValue>(v)) return "None";
    if (const bool* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
    if (const int64_t* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
    if (const BigIntValue* bi = std::get_if<BigIntValue>(&v)) return bi->digits;
    if (const double* d = std::get_if<double>(&v)) return frontend::py_repr_float(*d);
    if (const ImagValue* im = std::get_if<ImagValue>(&v)) return frontend::py_repr_imag(im->imag);
    if (const std::string* s = std::get_if<std::string>(&v)) return py_repr_str(*s);
    if (const BytesValue* by = std::get_if<BytesValue>(&v)) return frontend::py_repr_bytes(by->bytes);
    return "Ellipsis";
}

DV expr(const Expr* e);
DV stmts(const StmtList& l);
DV pattern(const Pattern* p);

DV opt(const Expr* e) { return e ? expr(e) : atom("None"); }
DV exprs(const ExprList& l) {
    DV d = list();
    for (const auto& e : l) d.items.push_back(opt(e.get()));
    return d;
}
DV strs(const std::vector<std::string>& l) {
    DV d = list();
    for (const auto& s : l) d.items.push_back(atom(frontend::py_repr_str(s)));
    return d;
}
void field(DV& d, const char* name, DV v) {
    d.names.push_back(name);
    d.fields.push_back(std::move(v));
}
void field_opt(DV& d, const char* name, const Expr* e) {
    if (e) field(d, name, expr(e));
}
DV ctx(ExprContext c) { return mk(ctx_name(c)); }

DV arg(const Arg& a) {
    DV d = mk("arg", a.span);
    field(d, "arg", atom(frontend::py_repr_str(a.arg)));
    field_opt(d, "annotation", a.annotation.get());
    return d;
}

DV arguments(const Arguments& a) {
    DV d = mk("arguments");
    auto args = [](const std::vector<Arg>& l) {
        DV x = list();
        for (const auto& a : l) x.items.push_back(arg(a));
        return x;
    };
    field(d, "posonlyargs", args(a.posonlyargs));
    field(d, "args", args(a.args));
    if (a.vararg) field(d, "vararg", arg(*a.vararg));
    field(d, "kwonlyargs", args(a.kwonlyargs));
    field(d, "kw_defaults", exprs(a.kw_defaults));
    if (a.kwarg) field(d, "kwarg", arg(*a.kwarg));
    field(d, "defaults", exprs(a.defaults));
    return d;
}

DV keywords(const std::vector<Keyword>& ks) {
    DV l = list();
    for (const auto& k : ks) {
        DV d = mk("keyword", k.span);
        if (!k.arg.empty()) field(d, "arg", atom(frontend::py_repr_str(k.arg)));
        field(d, "value", expr(k.value.get()));
        l.items.push_back(std::move(d));
    }
    return l;
}

DV generators(const std::vector<Comprehension>& gs) {
    DV l = list();
    for (const auto& g : gs) {
        DV d = mk("comprehension", g.span);
        field(d, "target", expr(g.target.get()));
        field(d, "iter", expr(g.iter.get()));
        field(d, "ifs", exprs(g.ifs));
        field(d, "is_async", atom(g.is_async ? "1" : "0"));
        l.items.push_back(std::move(d));
    }
    return l;
}

DV expr(const Expr* e) {
    DV d = mk(expr_kind_name(e->kind), e->span);
    switch (e->kind) {
        case ExprKind::BoolOp: {
            auto* n = e->as<BoolOp>();
            field(d, "op", mk(n->op == BoolOpKind::And ? "And" : "Or"));
            field(d, "values", exprs(n->values));
            break;
        }
        case ExprKind::NamedExpr: {
            auto* n = e->as<NamedExpr>();
            field(d, "target", expr(n->target.get()));
            field(d, "value", expr(n->value.get()));
            break;
        }
        case ExprKind::BinOp: {
            auto* n = e->as<BinOp>();
            field(d, "left", expr(n->left.get()));
            field(d, "op", mk(operator_name(n->op)));
            field(d, "right", expr(n->right.get()));
            break;
        }
        case ExprKind::UnaryOp: {
            auto* n = e->as<UnaryOp>();
            field(d, "op", mk(unaryop_name(n->op)));
            field(d, "operand", expr(n->operand.get()));
            break;
        }
        case ExprKind::Lambda: {
            auto* n = e->as<Lambda>();
            field(d, "args", arguments(*n->args));
            field(d, "body", expr(n->body.get()));
            break;
        }
        case ExprKind::IfExp: {
            auto* n = e->as<IfExp>();
            field(d, "test", expr(n->test.get()));
            field(d, "body", expr(n->body.get()));
            field(d, "orelse", expr(n->orelse.get()));
            break;
        }
        case ExprKind::Dict:
            field(d, "keys", exprs(e->as<Dict>()->keys));
            field(d, "values", exprs(e->as<Dict>()->values));
            break;
        case ExprKind::Set: field(d, "elts", exprs(e->as<Set>()->elts)); break;
        case ExprKind::ListComp:
            field(d, "elt", expr(e->as<ListComp>()->elt.get()));
            field(d, "generators", generators(e->as<ListComp>()->generators));
            break;
        case ExprKind::SetComp:
            field(d, "elt", expr(e->as<SetComp>()->elt.get()));
            field(d, "generators", generators(e->as<SetComp>()->generators));
            break;
        case ExprKind::GeneratorExp:
            field(d, "elt", expr(e->as<GeneratorExp>()->elt.get()));
            field(d, "generators", generators(e->as<GeneratorExp>()->generators));
            break;
        case ExprKind::DictComp:
            field(d, "key", expr(e->as<DictComp>()->key.get()));
            field(d, "value", expr(e->as<DictComp>()->value.get()));
            field(d, "generators", generators(e->as<DictComp>()->generators));
            break;
        case ExprKind::Await: field(d, "value", expr(e->as<Await>()->value.get())); break;
        case ExprKind::Yield: field_opt(d, "value", e->as<Yield>()->value.get()); break;
        case ExprKind::YieldFrom: field(d, "value", expr(e->as<YieldFrom>()->value.get())); break;
        case ExprKind::Compare: {
            auto* n = e->as<Compare>();
            field(d, "left", expr(n->left.get()));
            DV ops = list();
            for (CmpOpKind op : n->ops) ops.items.push_back(mk(cmpop_name(op)));
            field(d, "ops", std::move(ops));
            field(d, "comparators", exprs(n->comparators));
            break;
        }
        case ExprKind::Call: {
            auto* n = e->as<Call>();
            field(d, "func", expr(n->func.get()));
            field(d, "args", exprs(n->args));
            field(d, "keywords", keywords(n->keywords));
            break;
        }
        case ExprKind::FormattedValue: {
            auto* n = e->as<FormattedValue>();
            field(d, "value", expr(n->value.get()));
            field(d, "conversion", atom(std::to_string(n->conversion)));
            field_opt(d, "format_spec", n->format_spec.get());
            break;
        }
        case ExprKind::JoinedStr: field(d, "values", exprs(e->as<JoinedStr>()->values)); break;
        case ExprKind::Constant: {
            auto* n = e->as<Constant>();
            field(d, "value", atom(constant_repr(n->value)));
            if (!n->str_kind.empty()) field(d, "kind", atom(frontend::py_repr_str(n->str_kind)));
            break;
        }
        case ExprKind::Attribute: {
            auto* n = e->as<Attribute>();
            field(d, "value", expr(n->value.get()));
            field(d, "attr", atom(frontend::py_repr_str(n->attr)));
            field(d, "ctx", ctx(n->ctx));
            break;
        }
        case ExprKind::Subscript: {
            auto* n = e->as<Subscript>();
            field(d, "value", expr(n->value.get()));
            field(d, "slice", expr(n->slice.get()));
            field(d, "ctx", ctx(n->ctx));
            break;
        }
        case ExprKind::Starred:
            field(d, "value", expr(e->as<Starred>()->value.get()));
            field(d, "ctx", ctx(e->as<Starred>()->ctx));
            break;
        case ExprKind::Name:
            field(d, "id", atom(frontend::py_repr_str(e->as<Name>()->id)));
            field(d, "ctx", ctx(e->as<Name>()->ctx));
            break;
        case ExprKind::List:
            field(d, "elts", exprs(e->as<List>()->elts));
            field(d, "ctx", ctx(e->as<List>()->ctx));
            break;
        case ExprKind::Tuple:
            field(d, "elts", exprs(e->as<Tuple>()->elts));
            field(d, "ctx", ctx(e->as<Tuple>()->ctx));
            break;
        case ExprKind::Slice: {
            auto* n = e->as<Slice>();
            field_opt(d, "lower", n->lower.get());
            field_opt(d, "upper", n->upper.get());
            field_opt(d, "step", n->step.get());
            break;
        }
    }
    return d;
}

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

DV pattern(const Pattern* p) {
    static const char* const kNames[] = {"MatchValue", "MatchSingleton", "MatchSequence", "MatchMapping",
                                         "MatchClass", "MatchStar", "MatchAs", "MatchOr"};
    DV d = mk(kNames[static_cast<int>(p->kind)], p->span);
    auto pats = [](const PatternList& l) {
        DV x = list();
        for (const auto& q : l) x.items.push_back(pattern(q.get()));
        return x;
    };
    switch (p->kind) {
        case PatternKind::MatchValue: field(d, "value", expr(static_cast<const MatchValue*>(p)->value.get())); break;
        case PatternKind::MatchSingleton: field(d, "value", atom(constant_repr(static_cast<const MatchSingleton*>(p)->value))); break;
        case PatternKind::MatchSequence: field(d, "patterns", pats(static_cast<const MatchSequence*>(p)->patterns)); break;
        case PatternKind::MatchMapping: {
            auto* m = static_cast<const MatchMapping*>(p);
            field(d, "keys", exprs(m->keys));
            field(d, "patterns", pats(m->patterns));
            if (m->rest) field(d, "rest", atom(frontend::py_repr_str(*m->rest)));
            break;
        }
        case PatternKind::MatchClass: {
            auto* m = static_cast<const MatchClass*>(p);
            field(d, "cls", expr(m->cls.get()));
            field(d, "patterns", pats(m->patterns));
            field(d, "kwd_attrs", strs(m->kwd_attrs));
            field(d, "kwd_patterns", pats(m->kwd_patterns));
            break;
        }
        case PatternKind::MatchStar: {
            auto* m = static_cast<const MatchStar*>(p);
            if (m->name) field(d, "name", atom(frontend::py_repr_str(*m->name)));
            break;
        }
        case PatternKind::MatchAs: {
            auto* m = static_cast<const MatchAs*>(p);
            if (m->pattern) field(d, "pattern", pattern(m->pattern.get()));
            if (m->name) field(d, "name", atom(frontend::py_repr_str(*m->name)));
            break;
        }
        case PatternKind::MatchOr: field(d, "patterns", pats(static_cast<const MatchOr*>(p)->patterns)); break;
    }
    return d;
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
    std::vector<std::string> args;
    bool allsimple = true;
    for (size_t i = 0; i < v.fields.size(); ++i) {
        std::string a = std::string(v.names[i]) + "=";
        bool s = false;
        format(v.fields[i], level, indent, spans, a, s);
        allsimple = allsimple && s;
        args.push_back(std::move(a));
    }
    out += v.text;
    if (spans && v.span.valid()) out += span_text(v.span);
    out += "(";
    bool one_line = allsimple && args.size() <= 3;
    if (!one_line) out += prefix;
    for (size_t i = 0; i < args.size(); ++i) {
        if (i) out += one_line ? ", " : sep;
        out += args[i];
    }
    out += ")";
    simple = one_line && args.empty();
}

}  // namespace

std::string dump(const Module& m, bool with_spans) {
    DV d = mk("Module");
    field(d, "body", stmts(m.body));
    field(d, "type_ignores", list());
    std::string out;
    bool simple = false;
    format(d, 0, with_spans, with_spans, out, simple);
    return out;
}

}  // namespace tp::ast

namespace tp::frontend {

namespace {

// Code points Python's str.isprintable() rejects, in the ranges that occur in practice.
bool unicode_printable(uint32_t cp) {
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad) return false;
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202f)) return false;
    if ((cp >= 0x205f && cp <= 0x206f) || cp == 0x3000 || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb)) return false;
    if ((cp >= 0x600 && cp <= 0x605) || cp == 0x61c || cp == 0x6dd || cp == 0x70f || cp == 0x180e) return false;
    if ((cp >= 0xd800 && cp <= 0xf8ff) || cp >= 0xf0000 || (cp >= 0xe0000 && cp <= 0xe0fff)) return false;
    if (cp == 0xfffe || cp == 0xffff) return false;
    return true;
}

std::string hex_escape(const char* prefix, uint32_t v, int width) {
    static const char kHex[] = "0123456789abcdef";
    std::string s = prefix;
    for (int i = width - 1; i >= 0; --i) s += kHex[(v >> (4 * i)) & 0xf];
    return s;
}

// Shortest round-trip digits and decimal exponent of a finite positive double.
void shortest_digits(double v, std::string& digits, int& exp10) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, r.ptr);
    size_t e = s.find('e');
    exp10 = std::stoi(s.substr(e + 1));
    digits.clear();
    for (size_t i = 0; i < e; ++i)
        if (s[i] != '.') digits += s[i];
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

std::string float_text(double v, bool add_dot_zero) {
    if (std::isnan(v)) return "nan";
    std::string sign = std::signbit(v) ? "-" : "";
    if (std::isinf(v)) return sign + "inf";
    v = std::fabs(v);
    if (v == 0) return sign + (add_dot_zero ? "0.0" : "0");
    std::string digits;
    int exp = 0;
    shortest_digits(v, digits, exp);
    if (exp >= -4 && exp < 16) {
        std::string s;
        if (exp >= 0) {
            std::string ip = digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
            ip += std::string(exp + 1 - ip.size(), '0');
            std::string fp = digits.size() > static_cast<size_t>(exp + 1) ? digits.substr(exp + 1) : "";
            s = ip + (fp.empty() ? (add_dot_zero ? ".0" : "") : "." + fp);
        } else {
            s = "0." + std::string(-exp - 1, '0') + digits;
        }
        return sign + s;
    }
    std::string m = digits.substr(0, 1);
    if (digits.size() > 1) m += "." + digits.substr(1);
    std::string es = std::to_string(std::abs(exp));
    if (es.size() < 2) es = "0" + es;
    return sign + m + "e" + (exp < 0 ? "-" : "+") + es;
}

}  // namespace

std::string py_repr_float(double v) { return float_text(v, true); }
std::string py_repr_imag(double v) { return float_text(v, false) + "j"; }

std::string py_repr_str(std::string_view s) {
    bool has_single = s.find('\'') != std::string_view::npos, has_double = s.find('"') != std::string_view::npos;
    char q = has_single && !has_double ? '"' : '\'';
    std::string out(1, q);
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if (c == '\\') out += "\\\\";
            else if (c == static_cast<unsigned char>(q)) out.append(1, '\\').append(1, q);
            else if (c == '\t') out += "\\t";
            else if (c == '\n') out += "\\n";
            else if (c == '\r') out += "\\r";
            else if (c < 0x20 || c == 0x7f) out += hex_escape("\\x", c, 2);
            else out += static_cast<char>(c);
            ++i;
            continue;
        }
        int n = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        if (i + n > s.size()) n = 1;
        uint32_t cp = n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : n == 4 ? (c & 0x07) : c;
        for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
        if (unicode_printable(cp)) out.append(s.substr(i, n));
        else if (cp < 0x100) out += hex_escape("\\x", cp, 2);
        else if (cp < 0x10000) out += hex_escape("\\u", cp, 4);
        else out += hex_escape("\\U", cp, 8);
        i += n;
    }
    out += q;
    return out;
}

std::string py_repr_bytes(std::string_view s) {
    bool has_single = s.find('\'') != std::string_view::npos, has_double = s.find('"') != std::string_view::npos;
    char q = has_single && !has_double ? '"' : '\'';
    std::string out = "b";
    out += q;
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        if (c == '\\') out += "\\\\";
        else if (c == static_cast<unsigned char>(q)) out.append(1, '\\').append(1, q);
        else if (c == '\t') out += "\\t";
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c < 0x20 || c >= 0x7f) out += hex_escape("\\x", c, 2);
        else out += static_cast<char>(c);
    }
    out += q;
    return out;
}

}  // namespace tp::frontend
