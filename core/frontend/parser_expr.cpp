// Expressions: the precedence ladder of Python's grammar (lambda/conditional, or, and, not,
// comparisons, then a Pratt table for the binary operators, unary, power, await, primaries).
// Atoms, displays, comprehensions, calls, subscripts and assignment targets are in
// parser_atoms.cpp.
#include "frontend/parser_helpers.h"

namespace tp::frontend {

using namespace ast;
using namespace parse_detail;

namespace {

constexpr size_t kMaxChain = 1000;  // longest comparison chain (`a < b < ...`, a flat node)
// Deepest expression tree (ChainGuard): with AddressSanitizer's larger frames the AST dump
// overflowed the 8 MB stack at about 700 levels of `a.b.b...`.
constexpr int kMaxTreeDepth = 500;

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

}  // namespace

namespace parse_detail {

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

}  // namespace parse_detail

Parser::DepthGuard::DepthGuard(Parser& parser) : p(parser) {
    ++p.tree_depth_;
    if (++p.depth_ > 200) {
        // No destructor runs for a constructor that throws, and speculative parses go on.
        --p.depth_, --p.tree_depth_;
        p.fail_syntax("too deeply nested; the limit is 200 levels of nesting");
    }
}

void Parser::ChainGuard::link() {
    ++links;
    if (++p.tree_depth_ > kMaxTreeDepth)
        p.fail_syntax("nested too deeply; the limit is " + std::to_string(kMaxTreeDepth) +
                      " levels of operators, attributes, calls, subscripts, elifs and brackets together");
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
    ChainGuard chain(*this);
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
        chain.link();
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
    ChainGuard chain(*this);
    for (bool first = true;; first = false) {
        if (!first) chain.link();
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
