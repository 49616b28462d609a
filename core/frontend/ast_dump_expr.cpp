// ast::dump, expression half: renders expressions, comprehensions, call keywords, function
// arguments and match patterns into the DV tree with CPython's class and field names (field
// order and omitted optional fields as CPython 3.11's ast.dump prints them).
#include "frontend/ast_dump_internal.h"

namespace tp::ast::dump_detail {

namespace {

const char* unaryop_name(UnaryOpKind k) {
    static const char* const kNames[] = {"Invert", "Not", "UAdd", "USub"};
    return kNames[static_cast<int>(k)];
}
const char* cmpop_name(CmpOpKind k) {
    static const char* const kNames[] = {"Eq", "NotEq", "Lt", "LtE", "Gt", "GtE", "Is", "IsNot", "In", "NotIn"};
    return kNames[static_cast<int>(k)];
}
const char* ctx_name(ExprContext c) { return c == ExprContext::Load ? "Load" : c == ExprContext::Store ? "Store" : "Del"; }

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

DV ctx(ExprContext c) { return mk(ctx_name(c)); }

DV arg(const Arg& a) {
    DV d = mk("arg", a.span);
    field(d, "arg", atom(frontend::py_repr_str(a.arg)));
    field_opt(d, "annotation", a.annotation.get());
    return d;
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

}  // namespace

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

}  // namespace tp::ast::dump_detail
