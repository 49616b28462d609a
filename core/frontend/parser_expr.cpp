// Expressions: the precedence ladder of Python's grammar (lambda/conditional, or, and, not,
// comparisons, then a Pratt table for the binary operators, unary, power, await, primaries),
// displays, comprehensions, calls, subscripts and assignment-target checks.
#include "frontend/parser_common.h"

namespace tp::frontend {

using namespace ast;

namespace {

constexpr size_t kMaxChain = 1000;  // longest left-associative chain (`a+b+...`, `a.b.c...`)

template <class T> std::unique_ptr<T> node(SourceLoc b) {
    auto n = std::make_unique<T>();
    n->span.begin = b;
    return n;
}

// Binary operator precedence for the Pratt loop; 0 when the token is not a binary operator.
int binary_prec(const Token& t, OperatorKind& op) {
    if (t.kind != TokenKind::Op || t.text.size() > 2) return 0;
    static const struct { const char* text; int prec; OperatorKind op; } kTable[] = {
        {"|", 1, OperatorKind::BitOr},   {"^", 2, OperatorKind::BitXor},  {"&", 3, OperatorKind::BitAnd},
        {"<<", 4, OperatorKind::LShift}, {">>", 4, OperatorKind::RShift}, {"+", 5, OperatorKind::Add},
        {"-", 5, OperatorKind::Sub},     {"*", 6, OperatorKind::Mult},    {"@", 6, OperatorKind::MatMult},
        {"/", 6, OperatorKind::Div},     {"//", 6, OperatorKind::FloorDiv}, {"%", 6, OperatorKind::Mod}};
    for (const auto& e : kTable)
        if (t.text == e.text) {
            op = e.op;
            return e.prec;
        }
    return 0;
}

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

bool starts_expression(const Token& t) {
    switch (t.kind) {
        case TokenKind::Number: case TokenKind::String: return true;
        case TokenKind::Name:
            return !is_keyword(t.text) || t.text == "None" || t.text == "True" || t.text == "False" ||
                   t.text == "lambda" || t.text == "not" || t.text == "await";
        case TokenKind::Op:
            return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
                   t.text == "~" || t.text == "*" || t.text == "...";
        default: return false;
    }
}

}  // namespace

Parser::DepthGuard::DepthGuard(Parser& parser) : p(parser) {
    if (++p.depth_ > 200) p.fail_syntax("too deeply nested; the limit is 200 levels of nesting");
}

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

ExprPtr Parser::expression() {
    if (at_kw("lambda")) return lambda_expression();
    SourceLoc b = here();
    ExprPtr body = disjunction();
    if (!at_kw("if")) return body;
    DepthGuard g(*this);  // `a if b else c if d else ...` recurses through orelse
    next();
    auto n = node<IfExp>(b);
    n->body = std::move(body);
    n->test = disjunction();
    expect_kw("else");
    n->orelse = expression();
    finish(*n, b);
    return n;
}

ExprPtr Parser::named_expression() {
    if (peek().kind == TokenKind::Name && peek(1).is_op(":=") && !is_keyword(peek().text)) {
        SourceLoc b = here();
        auto target = node<Name>(b);
        target->id = next().text;
        finish(*target, b);
        target->ctx = ExprContext::Store;
        next();
        auto n = node<NamedExpr>(b);
        n->target = std::move(target);
        n->value = expression();
        finish(*n, b);
        return n;
    }
    ExprPtr e = expression();
    if (at_op(":=")) fail_syntax("cannot use assignment expressions with " + target_description(*e), e->span);
    return e;
}

ExprPtr Parser::star_named_expression() {
    if (!at_op("*")) return named_expression();
    SourceLoc b = here();
    next();
    auto n = node<Starred>(b);
    n->value = binary(1);
    finish(*n, b);
    return n;
}

ExprPtr Parser::star_expressions() {
    SourceLoc b = here();
    auto one = [&]() -> ExprPtr {
        if (!at_op("*")) return expression();
        SourceLoc sb = here();
        next();
        auto s = node<Starred>(sb);
        s->value = binary(1);
        finish(*s, sb);
        return s;
    };
    ExprPtr first = one();
    if (!at_op(",")) {
        if (first->kind == ExprKind::Starred) fail_syntax("cannot use starred expression here", first->span);
        return first;
    }
    auto t = node<Tuple>(b);
    t->elts.push_back(std::move(first));
    while (accept_op(",")) {
        if (!starts_expression(peek())) break;
        t->elts.push_back(one());
    }
    finish(*t, b);
    return t;
}

ExprPtr Parser::yield_or_star_expressions() {
    return at_kw("yield") ? yield_expression() : star_expressions();
}

ExprPtr Parser::yield_expression() {
    SourceLoc b = here();
    expect_kw("yield");
    if (accept_kw("from")) {
        auto n = node<YieldFrom>(b);
        n->value = expression();
        finish(*n, b);
        return n;
    }
    auto n = node<Yield>(b);
    if (starts_expression(peek())) n->value = star_expressions();
    finish(*n, b);
    return n;
}

ExprPtr Parser::disjunction() {
    SourceLoc b = here();
    ExprPtr first = conjunction();
    if (!at_kw("or")) return first;
    auto n = node<BoolOp>(b);
    n->op = BoolOpKind::Or;
    n->values.push_back(std::move(first));
    while (accept_kw("or")) n->values.push_back(conjunction());
    finish(*n, b);
    return n;
}

ExprPtr Parser::conjunction() {
    SourceLoc b = here();
    ExprPtr first = inversion();
    if (!at_kw("and")) return first;
    auto n = node<BoolOp>(b);
    n->op = BoolOpKind::And;
    n->values.push_back(std::move(first));
    while (accept_kw("and")) n->values.push_back(inversion());
    finish(*n, b);
    return n;
}

ExprPtr Parser::inversion() {
    if (!at_kw("not")) return comparison();
    DepthGuard g(*this);
    SourceLoc b = here();
    next();
    auto n = node<UnaryOp>(b);
    n->op = UnaryOpKind::Not;
    n->operand = inversion();
    finish(*n, b);
    return n;
}

ExprPtr Parser::comparison() {
    SourceLoc b = here();
    ExprPtr left = binary(1);
    std::unique_ptr<Compare> cmp;
    while (true) {
        const Token& t = peek();
        CmpOpKind op;
        int len = 1;
        if (t.kind == TokenKind::Op) {
            if (t.text == "==") op = CmpOpKind::Eq;
            else if (t.text == "!=") op = CmpOpKind::NotEq;
            else if (t.text == "<") op = CmpOpKind::Lt;
            else if (t.text == "<=") op = CmpOpKind::LtE;
            else if (t.text == ">") op = CmpOpKind::Gt;
            else if (t.text == ">=") op = CmpOpKind::GtE;
            else break;
        } else if (t.is_name("in")) {
            op = CmpOpKind::In;
        } else if (t.is_name("not") && peek(1).is_name("in")) {
            op = CmpOpKind::NotIn;
            len = 2;
        } else if (t.is_name("is")) {
            op = peek(1).is_name("not") ? CmpOpKind::IsNot : CmpOpKind::Is;
            len = op == CmpOpKind::IsNot ? 2 : 1;
        } else {
            break;
        }
        for (int k = 0; k < len; ++k) next();
        if (!cmp) {
            cmp = node<Compare>(b);
            cmp->left = std::move(left);
        }
        cmp->ops.push_back(op);
        cmp->comparators.push_back(binary(1));
        if (cmp->ops.size() > kMaxChain) fail_syntax("expression too long");
    }
    if (!cmp) return left;
    finish(*cmp, b);
    return cmp;
}

ExprPtr Parser::binary(int min_prec) {
    SourceLoc b = here();
    ExprPtr left = factor();
    size_t chain = 0;
    while (true) {
        OperatorKind op{};
        int prec = binary_prec(peek(), op);
        if (prec == 0 || prec < min_prec) break;
        next();
        auto n = node<BinOp>(b);
        n->left = std::move(left);
        n->op = op;
        n->right = binary(prec + 1);
        finish(*n, b);
        left = std::move(n);
        if (++chain > kMaxChain) fail_syntax("expression too long");
    }
    return left;
}

ExprPtr Parser::factor() {
    const Token& t = peek();
    if (t.kind == TokenKind::Op && (t.text == "-" || t.text == "+" || t.text == "~")) {
        DepthGuard g(*this);
        SourceLoc b = here();
        auto n = node<UnaryOp>(b);
        n->op = t.text == "-" ? UnaryOpKind::USub : t.text == "+" ? UnaryOpKind::UAdd : UnaryOpKind::Invert;
        next();
        n->operand = factor();
        finish(*n, b);
        return n;
    }
    return power();
}

ExprPtr Parser::power() {
    SourceLoc b = here();
    ExprPtr base;
    if (at_kw("await")) {
        next();
        auto a = node<Await>(b);
        a->value = primary();
        finish(*a, b);
        base = std::move(a);
    } else {
        base = primary();
    }
    if (!at_op("**")) return base;
    DepthGuard g(*this);
    next();
    auto n = node<BinOp>(b);
    n->left = std::move(base);
    n->op = OperatorKind::Pow;
    n->right = factor();
    finish(*n, b);
    return n;
}

ExprPtr Parser::primary() {
    SourceLoc b = here();
    ExprPtr e = atom();
    for (size_t chain = 0;; ++chain) {
        if (chain > kMaxChain) fail_syntax("expression too long");
        if (accept_op(".")) {
            auto n = node<Attribute>(b);
            n->value = std::move(e);
            n->attr = expect_name("an attribute name");
            finish(*n, b);
            e = std::move(n);
        } else if (at_op("(")) {
            DepthGuard g(*this);
            next();
            auto n = node<Call>(b);
            n->func = std::move(e);
            call_arguments(*n, ")");
            finish(*n, b);
            e = std::move(n);
        } else if (at_op("[")) {
            DepthGuard g(*this);
            next();
            auto n = node<Subscript>(b);
            n->value = std::move(e);
            n->slice = subscript_slices();
            expect_op("]");
            finish(*n, b);
            e = std::move(n);
        } else {
            return e;
        }
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

ExprPtr Parser::lambda_expression() {
    DepthGuard g(*this);
    SourceLoc b = here();
    expect_kw("lambda");
    auto n = node<Lambda>(b);
    n->args = parameters(true, ":");
    expect_op(":");
    n->body = expression();
    finish(*n, b);
    return n;
}

}  // namespace tp::frontend
