// `match` statements (PEP 634): the soft-keyword check, subjects, case blocks and every
// pattern kind (literal, capture, wildcard, value, group, sequence, mapping, class, or, as).
#include "frontend/parser_common.h"

namespace tp::frontend {

using namespace ast;

namespace {

template <class T> std::unique_ptr<T> node(SourceLoc b) {
    auto n = std::make_unique<T>();
    n->span.begin = b;
    return n;
}

}  // namespace

bool Parser::looks_like_match() {
    // `match` is a soft keyword: only a line shaped `match <subject>:` NEWLINE INDENT starts
    // a match statement; `match = 1` or `match(x)` stay ordinary code.
    const Token& t1 = peek(1);
    if (t1.kind == TokenKind::Newline || t1.kind == TokenKind::EndMarker) return false;
    if (t1.kind == TokenKind::Op && !(t1.text == "(" || t1.text == "[" || t1.text == "{" || t1.text == "-" ||
                                      t1.text == "+" || t1.text == "~" || t1.text == "*" || t1.text == "..."))
        return false;
    size_t save = pos_;
    bool ok = false;
    ++speculating_;
    try {
        next();
        star_named_expression();
        while (accept_op(",")) {
            if (at_op(":")) break;
            star_named_expression();
        }
        ok = at_op(":") && peek(1).kind == TokenKind::Newline && peek(2).kind == TokenKind::Indent;
    } catch (const ParseAbort&) {
    }
    --speculating_;
    pos_ = save;
    return ok;
}

StmtPtr Parser::match_statement(SourceLoc begin) {
    next();  // `match`
    auto m = node<Match>(begin);
    SourceLoc sb = here();
    ExprPtr subject = star_named_expression();
    if (at_op(",")) {
        auto t = node<Tuple>(sb);
        t->elts.push_back(std::move(subject));
        while (accept_op(",")) {
            if (at_op(":")) break;
            t->elts.push_back(star_named_expression());
        }
        finish(*t, sb);
        subject = std::move(t);
    }
    m->subject = std::move(subject);
    DepthGuard g(*this);
    expect_op(":");
    if (!at(TokenKind::Newline)) fail_expected("newline");
    next();
    if (!at(TokenKind::Indent)) fail_expected("an indented block of `case` clauses");
    next();
    while (!at(TokenKind::Dedent) && !at(TokenKind::EndMarker)) {
        if (!at_kw("case")) fail_expected("`case`");
        MatchCase mc;
        mc.span.begin = here();
        next();
        mc.pattern = patterns();
        if (accept_kw("if")) mc.guard = named_expression();
        mc.body = block();
        mc.span.end = prev_end();
        m->cases.push_back(std::move(mc));
    }
    if (at(TokenKind::Dedent)) next();
    finish(*m, begin);
    return m;
}

PatternPtr Parser::star_pattern() {
    if (!at_op("*")) return pattern();
    SourceLoc b = here();
    next();
    auto s = node<MatchStar>(b);
    std::string name = expect_name("a name after `*` in a pattern");
    if (name != "_") s->name = name;
    finish(*s, b);
    return s;
}

PatternPtr Parser::patterns() {
    SourceLoc b = here();
    PatternPtr first = star_pattern();
    if (!at_op(",")) {
        if (first->kind == PatternKind::MatchStar) fail_syntax("a star pattern must be inside a sequence", first->span);
        return first;
    }
    auto seq = node<MatchSequence>(b);
    seq->patterns.push_back(std::move(first));
    while (accept_op(",")) {
        if (at_op(":") || at_kw("if")) break;
        seq->patterns.push_back(star_pattern());
    }
    finish(*seq, b);
    return seq;
}

PatternPtr Parser::pattern() {
    DepthGuard g(*this);
    SourceLoc b = here();
    PatternPtr p = or_pattern();
    if (!accept_kw("as")) return p;
    std::string name = expect_name("a name after `as`");
    if (name == "_") fail_syntax("cannot use `_` as a target", {b, prev_end()});
    auto as = node<MatchAs>(b);
    as->pattern = std::move(p);
    as->name = name;
    finish(*as, b);
    return as;
}

PatternPtr Parser::or_pattern() {
    SourceLoc b = here();
    PatternPtr first = closed_pattern();
    if (!at_op("|")) return first;
    auto o = node<MatchOr>(b);
    o->patterns.push_back(std::move(first));
    while (accept_op("|")) o->patterns.push_back(closed_pattern());
    finish(*o, b);
    return o;
}

ExprPtr Parser::pattern_literal_expr() {
    SourceLoc b = here();
    if (at(TokenKind::String)) {
        ExprPtr e = string_literals();
        if (e->kind == ExprKind::JoinedStr) fail_syntax("patterns may not match formatted string literals", e->span);
        return e;
    }
    if (peek().kind == TokenKind::Name) {
        const std::string& w = peek().text;
        if (w == "None" || w == "True" || w == "False") return atom();
    }
    ExprPtr real;
    if (at_op("-")) {
        next();
        if (!at(TokenKind::Number)) fail_expected("a number after `-` in a pattern");
        auto u = node<UnaryOp>(b);
        u->op = UnaryOpKind::USub;
        u->operand = number_literal(next());
        finish(*u, b);
        real = std::move(u);
    } else if (at(TokenKind::Number)) {
        real = number_literal(next());
    } else {
        fail_expected("a pattern");
    }
    if ((at_op("+") || at_op("-")) && peek(1).kind == TokenKind::Number) {
        auto bin = node<BinOp>(b);
        bin->op = next().text == "+" ? OperatorKind::Add : OperatorKind::Sub;
        bin->left = std::move(real);
        bin->right = number_literal(next());
        if (!std::holds_alternative<ImagValue>(bin->right->as<Constant>()->value))
            fail_syntax("imaginary number required in complex literal", bin->right->span);
        finish(*bin, b);
        return bin;
    }
    return real;
}

ExprPtr Parser::pattern_value_name() {
    SourceLoc b = here();
    auto n = node<Name>(b);
    n->id = expect_name("a name");
    finish(*n, b);
    ExprPtr e = std::move(n);
    while (accept_op(".")) {
        auto a = node<Attribute>(b);
        a->value = std::move(e);
        a->attr = expect_name("an attribute name");
        finish(*a, b);
        e = std::move(a);
    }
    return e;
}

PatternPtr Parser::closed_pattern() {
    const Token& t = peek();
    SourceLoc b = here();
    if (t.kind == TokenKind::Number || t.kind == TokenKind::String || t.is_op("-")) {
        auto v = node<MatchValue>(b);
        v->value = pattern_literal_expr();
        finish(*v, b);
        return v;
    }
    if (t.is_op("(")) return sequence_or_group(")");
    if (t.is_op("[")) return sequence_or_group("]");
    if (t.is_op("{")) return mapping_pattern();
    if (t.kind != TokenKind::Name || (is_keyword(t.text) && t.text != "None" && t.text != "True" && t.text != "False"))
        fail_expected("a pattern");
    if (t.text == "None" || t.text == "True" || t.text == "False") {
        auto s = node<MatchSingleton>(b);
        if (t.text == "None") s->value = NoneValue{};
        else s->value = t.text == "True";
        next();
        finish(*s, b);
        return s;
    }
    if (!peek(1).is_op(".") && !peek(1).is_op("(")) {
        auto as = node<MatchAs>(b);
        std::string name = next().text;
        if (name != "_") as->name = name;
        finish(*as, b);
        return as;
    }
    ExprPtr value = pattern_value_name();
    if (at_op("(")) {
        DepthGuard g(*this);
        next();
        auto mc = node<MatchClass>(b);
        mc->cls = std::move(value);
        class_pattern_args(*mc);
        finish(*mc, b);
        return mc;
    }
    auto v = node<MatchValue>(b);
    v->value = std::move(value);
    finish(*v, b);
    return v;
}

void Parser::class_pattern_args(MatchClass& mc) {
    while (!at_op(")")) {
        if (peek().kind == TokenKind::Name && peek(1).is_op("=")) {
            mc.kwd_attrs.push_back(next().text);
            next();
            mc.kwd_patterns.push_back(pattern());
        } else {
            if (!mc.kwd_attrs.empty()) fail_syntax("positional patterns follow keyword patterns");
            mc.patterns.push_back(pattern());
        }
        if (!accept_op(",")) break;
    }
    expect_op(")");
}

PatternPtr Parser::sequence_or_group(std::string_view close) {
    DepthGuard g(*this);
    SourceLoc b = here();
    next();
    auto seq = node<MatchSequence>(b);
    if (accept_op(close)) {
        finish(*seq, b);
        return seq;
    }
    PatternPtr first = star_pattern();
    if (close == ")" && !at_op(",")) {
        expect_op(")");
        if (first->kind == PatternKind::MatchStar) fail_syntax("a star pattern must be inside a sequence", first->span);
        return first;  // a parenthesized group
    }
    seq->patterns.push_back(std::move(first));
    while (accept_op(",")) {
        if (at_op(close)) break;
        seq->patterns.push_back(star_pattern());
    }
    expect_op(close);
    finish(*seq, b);
    return seq;
}

PatternPtr Parser::mapping_pattern() {
    DepthGuard g(*this);
    SourceLoc b = here();
    next();
    auto m = node<MatchMapping>(b);
    while (!at_op("}")) {
        if (accept_op("**")) {
            m->rest = expect_name("a name after `**`");
            accept_op(",");
            break;
        }
        const Token& t = peek();
        if (t.kind == TokenKind::Name && !(t.text == "None" || t.text == "True" || t.text == "False")) {
            ExprPtr key = pattern_value_name();
            if (key->kind == ExprKind::Name) fail_syntax("mapping pattern keys must be literals or dotted names", key->span);
            m->keys.push_back(std::move(key));
        } else {
            m->keys.push_back(pattern_literal_expr());
        }
        expect_op(":");
        m->patterns.push_back(pattern());
        if (!accept_op(",")) break;
    }
    expect_op("}");
    finish(*m, b);
    return m;
}

}  // namespace tp::frontend
