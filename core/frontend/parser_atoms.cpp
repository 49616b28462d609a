// Expressions, the leaves of the ladder in parser_expr.cpp: atoms, parenthesized forms,
// list/set/dict displays, comprehensions, slices and subscripts, call arguments, and the
// assignment-target checks (star_targets, set_context) with CPython's error wording.
#include "frontend/parser_helpers.h"

namespace tp::frontend {

using namespace ast;
using namespace parse_detail;

namespace parse_detail {

// What CPython calls an expression that cannot be a target ("cannot assign to <this>").
std::string target_description(const Expr& e) {
    switch (e.kind) {
        case ExprKind::Call: return "function call";
        case ExprKind::BoolOp: case ExprKind::BinOp: case ExprKind::UnaryOp: return "expression";
        case ExprKind::Lambda: return "lambda";
        case ExprKind::IfExp: return "conditional expression";
        case ExprKind::NamedExpr: return "named expression";
        case ExprKind::Compare: return "comparison";
        case ExprKind::Dict: return "dict literal";
        case ExprKind::Set: return "set display";
        case ExprKind::ListComp: return "list comprehension";
        case ExprKind::SetComp: return "set comprehension";
        case ExprKind::DictComp: return "dict comprehension";
        case ExprKind::GeneratorExp: return "generator expression";
        case ExprKind::Await: return "await expression";
        case ExprKind::Yield: case ExprKind::YieldFrom: return "yield expression";
        case ExprKind::JoinedStr: case ExprKind::FormattedValue: return "f-string expression";
        case ExprKind::Slice: return "slice";
        case ExprKind::Constant: {
            const auto& v = e.as<Constant>()->value;
            if (std::holds_alternative<NoneValue>(v)) return "`None`";
            if (const bool* b = std::get_if<bool>(&v)) return *b ? "`True`" : "`False`";
            if (std::holds_alternative<EllipsisValue>(v)) return "ellipsis";
            return "literal";
        }
        default: return "expression";
    }
}

}  // namespace parse_detail

void Parser::set_context(Expr& e, ExprContext ctx) {
    switch (e.kind) {
        case ExprKind::Name: e.as<Name>()->ctx = ctx; return;
        case ExprKind::Attribute: e.as<Attribute>()->ctx = ctx; return;
        case ExprKind::Subscript: e.as<Subscript>()->ctx = ctx; return;
        case ExprKind::Starred:
            if (ctx == ExprContext::Del) fail_syntax("cannot delete starred", e.span);
            e.as<Starred>()->ctx = ctx;
            set_context(*e.as<Starred>()->value, ctx);
            return;
        case ExprKind::Tuple:
            e.as<Tuple>()->ctx = ctx;
            for (auto& x : e.as<Tuple>()->elts) set_context(*x, ctx);
            return;
        case ExprKind::List:
            e.as<List>()->ctx = ctx;
            for (auto& x : e.as<List>()->elts) set_context(*x, ctx);
            return;
        default:
            if (ctx == ExprContext::Del) fail_syntax("cannot delete " + target_description(e), e.span);
            fail(DiagKind::InvalidAssignTarget, e.span, {target_description(e)});
    }
}

ExprPtr Parser::atom() {
    const Token& t = peek();
    SourceLoc b = here();
    switch (t.kind) {
        case TokenKind::Name: {
            if (t.text == "None" || t.text == "True" || t.text == "False") {
                auto c = node<Constant>(b);
                if (t.text == "None") c->value = NoneValue{};
                else c->value = t.text == "True";
                next();
                finish(*c, b);
                return c;
            }
            if (is_keyword(t.text)) fail_expected("an expression");
            auto n = node<Name>(b);
            n->id = t.text;
            next();
            finish(*n, b);
            return n;
        }
        case TokenKind::Number: {
            const Token& num = next();
            return number_literal(num);
        }
        case TokenKind::String: return string_literals();
        case TokenKind::Op:
            if (t.text == "(") return paren_expression();
            if (t.text == "[") return list_display();
            if (t.text == "{") return brace_display();
            if (t.text == "...") {
                auto c = node<Constant>(b);
                c->value = EllipsisValue{};
                next();
                finish(*c, b);
                return c;
            }
            if (t.text == "*") fail_syntax("cannot use starred expression here");
            break;
        default: break;
    }
    fail_expected("an expression");
}

ExprPtr Parser::paren_expression() {
    DepthGuard g(*this);
    SourceLoc b = here();
    expect_op("(");
    if (accept_op(")")) {
        auto t = node<Tuple>(b);
        finish(*t, b);
        return t;
    }
    if (at_kw("yield")) {
        ExprPtr y = yield_expression();
        expect_op(")");
        return y;
    }
    ExprPtr first = star_named_expression();
    if (at_kw("for") || (at_kw("async") && peek(1).is_name("for"))) {
        if (first->kind == ExprKind::Starred) fail_syntax("iterable unpacking cannot be used in comprehension", first->span);
        auto n = node<GeneratorExp>(b);
        n->elt = std::move(first);
        n->generators = comprehension_clauses();
        expect_op(")");
        finish(*n, b);
        return n;
    }
    if (at_op(",")) {
        auto t = node<Tuple>(b);
        t->elts.push_back(std::move(first));
        while (accept_op(",")) {
            if (at_op(")")) break;
            t->elts.push_back(star_named_expression());
        }
        expect_op(")");
        finish(*t, b);
        return t;
    }
    expect_op(")");
    if (first->kind == ExprKind::Starred) fail_syntax("cannot use starred expression here", first->span);
    return first;
}

ExprPtr Parser::list_display() {
    DepthGuard g(*this);
    SourceLoc b = here();
    expect_op("[");
    if (accept_op("]")) {
        auto l = node<List>(b);
        finish(*l, b);
        return l;
    }
    ExprPtr first = star_named_expression();
    if (at_kw("for") || (at_kw("async") && peek(1).is_name("for"))) {
        if (first->kind == ExprKind::Starred) fail_syntax("iterable unpacking cannot be used in comprehension", first->span);
        auto n = node<ListComp>(b);
        n->elt = std::move(first);
        n->generators = comprehension_clauses();
        expect_op("]");
        finish(*n, b);
        return n;
    }
    auto l = node<List>(b);
    l->elts.push_back(std::move(first));
    while (accept_op(",")) {
        if (at_op("]")) break;
        l->elts.push_back(star_named_expression());
    }
    expect_op("]");
    finish(*l, b);
    return l;
}

ExprPtr Parser::brace_display() {
    DepthGuard g(*this);
    SourceLoc b = here();
    expect_op("{");
    if (accept_op("}")) {
        auto d = node<Dict>(b);
        finish(*d, b);
        return d;
    }
    ExprPtr first_key, first_value;
    if (accept_op("**")) {
        first_value = binary(1);
    } else {
        first_key = star_named_expression();
        if (first_key->kind == ExprKind::Starred || !at_op(":")) {
            // A set display or set comprehension.
            if (at_kw("for") || (at_kw("async") && peek(1).is_name("for"))) {
                if (first_key->kind == ExprKind::Starred)
                    fail_syntax("iterable unpacking cannot be used in comprehension", first_key->span);
                auto n = node<SetComp>(b);
                n->elt = std::move(first_key);
                n->generators = comprehension_clauses();
                expect_op("}");
                finish(*n, b);
                return n;
            }
            auto s = node<Set>(b);
            s->elts.push_back(std::move(first_key));
            while (accept_op(",")) {
                if (at_op("}")) break;
                s->elts.push_back(star_named_expression());
            }
            expect_op("}");
            finish(*s, b);
            return s;
        }
        expect_op(":");
        first_value = expression();
        if (at_kw("for") || (at_kw("async") && peek(1).is_name("for"))) {
            auto n = node<DictComp>(b);
            n->key = std::move(first_key);
            n->value = std::move(first_value);
            n->generators = comprehension_clauses();
            expect_op("}");
            finish(*n, b);
            return n;
        }
    }
    auto d = node<Dict>(b);
    d->keys.push_back(std::move(first_key));
    d->values.push_back(std::move(first_value));
    while (accept_op(",")) {
        if (at_op("}")) break;
        if (accept_op("**")) {
            d->keys.push_back(nullptr);
            d->values.push_back(binary(1));
            continue;
        }
        d->keys.push_back(expression());
        expect_op(":");
        d->values.push_back(expression());
    }
    expect_op("}");
    finish(*d, b);
    return d;
}

std::vector<Comprehension> Parser::comprehension_clauses() {
    std::vector<Comprehension> gens;
    while (at_kw("for") || (at_kw("async") && peek(1).is_name("for"))) {
        Comprehension c;
        c.span.begin = here();
        c.is_async = accept_kw("async");
        expect_kw("for");
        c.target = star_targets();
        expect_kw("in");
        c.iter = disjunction();
        while (accept_kw("if")) c.ifs.push_back(disjunction());
        c.span.end = prev_end();
        gens.push_back(std::move(c));
    }
    return gens;
}

ExprPtr Parser::star_target() {
    if (!at_op("*")) return binary(1);
    DepthGuard g(*this);
    SourceLoc b = here();
    next();
    auto s = node<Starred>(b);
    s->value = star_target();
    finish(*s, b);
    return s;
}

ExprPtr Parser::star_targets() {
    SourceLoc b = here();
    ExprPtr first = star_target();
    if (at_op(",")) {
        auto t = node<Tuple>(b);
        t->elts.push_back(std::move(first));
        while (accept_op(",")) {
            if (!starts_expression(peek())) break;
            t->elts.push_back(star_target());
        }
        finish(*t, b);
        first = std::move(t);
    }
    set_context(*first, ExprContext::Store);
    return first;
}

ExprPtr Parser::slice_item() {
    SourceLoc b = here();
    if (at_op("*")) return star_named_expression();
    ExprPtr lower;
    if (!at_op(":")) {
        lower = named_expression();
        if (!at_op(":")) return lower;
    }
    next();  // ':'
    auto s = node<Slice>(b);
    s->lower = std::move(lower);
    if (!at_op(":") && !at_op(",") && !at_op("]")) s->upper = expression();
    if (accept_op(":"))
        if (!at_op(",") && !at_op("]")) s->step = expression();
    finish(*s, b);
    return s;
}

ExprPtr Parser::subscript_slices() {
    SourceLoc b = here();
    ExprPtr first = slice_item();
    if (!at_op(",") && first->kind != ExprKind::Starred) return first;
    auto t = node<Tuple>(b);
    t->elts.push_back(std::move(first));
    while (accept_op(",")) {
        if (at_op("]")) break;
        t->elts.push_back(slice_item());
    }
    finish(*t, b);
    return t;
}

void Parser::call_arguments(Call& call, std::string_view close) {
    bool seen_kw = false, seen_kw_unpack = false;
    while (!at_op(close)) {
        SourceLoc b = here();
        if (accept_op("*")) {
            if (seen_kw_unpack) fail_syntax("iterable argument unpacking follows keyword argument unpacking");
            auto s = node<Starred>(b);
            s->value = expression();
            finish(*s, b);
            call.args.push_back(std::move(s));
        } else if (accept_op("**")) {
            Keyword k;
            k.value = expression();
            k.span = {b, prev_end()};
            call.keywords.push_back(std::move(k));
            seen_kw_unpack = true;
        } else if (peek().kind == TokenKind::Name && peek(1).is_op("=") && !is_keyword(peek().text)) {
            Keyword k;
            k.arg = next().text;
            next();
            k.value = expression();
            k.span = {b, prev_end()};
            call.keywords.push_back(std::move(k));
            seen_kw = true;
        } else {
            ExprPtr e = named_expression();
            if (at_kw("for") || (at_kw("async") && peek(1).is_name("for"))) {
                auto g = node<GeneratorExp>(b);
                g->elt = std::move(e);
                g->generators = comprehension_clauses();
                bool sole = call.args.empty() && call.keywords.empty() && at_op(close);
                if (!sole) fail_syntax("generator expression must be parenthesized", {b, prev_end()});
                g->span.end = prev_end();
                e = std::move(g);
            } else if (at_op("=")) {
                fail_syntax("expression cannot contain assignment; perhaps you meant `==`", e->span);
            }
            if (seen_kw_unpack) fail_syntax("positional argument follows keyword argument unpacking", e->span);
            if (seen_kw) fail_syntax("positional argument follows keyword argument", e->span);
            call.args.push_back(std::move(e));
        }
        if (!accept_op(",")) break;
    }
    expect_op(close);
}

}  // namespace tp::frontend
