// Statements: the statement dispatcher, simple statements (assignments, return/raise, del,
// global, assert, imports), blocks, plus the public parse entry points and the shared
// token/error helpers. Compound statements are in parser_compound.cpp, def/class and type
// parameters in parser_definitions.cpp.
#include "frontend/parser_helpers.h"

namespace tp::frontend {

using namespace ast;
using namespace parse_detail;

namespace {

bool aug_operator(const Token& t, OperatorKind& op) {
    if (t.kind != TokenKind::Op || t.text.size() < 2 || t.text.back() != '=') return false;
    static const struct { const char* text; OperatorKind op; } kOps[] = {
        {"+=", OperatorKind::Add},     {"-=", OperatorKind::Sub},       {"*=", OperatorKind::Mult},
        {"@=", OperatorKind::MatMult}, {"/=", OperatorKind::Div},       {"%=", OperatorKind::Mod},
        {"&=", OperatorKind::BitAnd},  {"|=", OperatorKind::BitOr},     {"^=", OperatorKind::BitXor},
        {"<<=", OperatorKind::LShift}, {">>=", OperatorKind::RShift},   {"**=", OperatorKind::Pow},
        {"//=", OperatorKind::FloorDiv}};
    for (const auto& e : kOps)
        if (t.text == e.text) {
            op = e.op;
            return true;
        }
    return false;
}

}  // namespace

// ------------------------------------------------------------------------------- helpers

SourceLoc Parser::prev_end() const {
    // Blocks end with NEWLINE/DEDENT markers; a node ends at its last real token.
    size_t i = pos_;
    while (i > 0) {
        const Token& t = toks_[i - 1];
        if (t.kind != TokenKind::Newline && t.kind != TokenKind::Indent && t.kind != TokenKind::Dedent)
            return t.span.end;
        --i;
    }
    return peek().span.begin;
}

void Parser::fail(DiagKind kind, Span span, std::vector<std::string> args) {
    if (!speculating_) diags_.report(kind, span, std::move(args));
    throw ParseAbort{};
}

void Parser::fail_syntax(const std::string& msg, Span span) { fail(DiagKind::InvalidSyntax, span, {msg}); }

void Parser::fail_expected(const std::string& what) {
    const Token& t = peek();
    if (t.kind == TokenKind::Indent) fail(DiagKind::UnexpectedIndent, t.span);
    fail(DiagKind::ExpectedToken, t.span, {what, describe_token(t)});
}

const Token& Parser::expect_op(std::string_view s) {
    if (!at_op(s)) fail_expected("`" + std::string(s) + "`");
    return next();
}

const Token& Parser::expect_kw(std::string_view s) {
    if (!at_kw(s)) fail_expected("`" + std::string(s) + "`");
    return next();
}

std::string Parser::expect_name(const char* what) {
    const Token& t = peek();
    if (t.kind != TokenKind::Name || is_keyword(t.text)) fail_expected(what);
    return next().text;
}

void Parser::expect_newline() {
    if (at(TokenKind::Newline)) {
        next();
        return;
    }
    if (at(TokenKind::EndMarker)) return;
    fail_expected("newline");
}

// ---------------------------------------------------------------------------- statements

StmtList Parser::parse_file() {
    StmtList body;
    while (!at(TokenKind::EndMarker)) {
        if (at(TokenKind::Newline)) {
            next();
            continue;
        }
        statement(body);
    }
    return body;
}

ExprPtr Parser::parse_eval_input() {
    ExprPtr e = star_expressions();
    while (at(TokenKind::Newline)) next();
    if (!at(TokenKind::EndMarker)) fail_expected("end of expression");
    return e;
}

void Parser::statement(StmtList& out) {
    const Token& t = peek();
    if (t.kind == TokenKind::Indent) fail(DiagKind::UnexpectedIndent, t.span);
    if (t.kind == TokenKind::Dedent) fail_expected("a statement");
    SourceLoc b = here();
    if (t.is_op("@")) {
        ExprList decorators;
        while (accept_op("@")) {
            decorators.push_back(named_expression());
            expect_newline();
        }
        out.push_back(compound_statement(std::move(decorators)));
        return;
    }
    if (t.kind == TokenKind::Name) {
        static const char* const kCompound[] = {"def", "if", "class", "with", "for", "try", "while", "async"};
        for (const char* kw : kCompound)
            if (t.text == kw) {
                out.push_back(compound_statement({}));
                return;
            }
        if (t.text == "match" && looks_like_match()) {
            out.push_back(match_statement(b));
            return;
        }
    }
    simple_statements(out);
}


void Parser::simple_statements(StmtList& out) {
    while (true) {
        out.push_back(simple_statement());
        if (!accept_op(";")) break;
        if (at(TokenKind::Newline) || at(TokenKind::EndMarker)) break;
    }
    expect_newline();
}

StmtPtr Parser::simple_statement() {
    const Token& t = peek();
    SourceLoc b = here();
    if (t.kind != TokenKind::Name) return expression_statement();
    const std::string& w = t.text;
    if (w == "pass" || w == "break" || w == "continue") {
        next();
        StmtPtr s;
        if (w == "pass") s = std::make_unique<Pass>();
        else if (w == "break") s = std::make_unique<Break>();
        else s = std::make_unique<Continue>();
        s->span = {b, prev_end()};
        return s;
    }
    if (w == "return") {
        next();
        auto s = node<Return>(b);
        if (!at(TokenKind::Newline) && !at_op(";") && !at(TokenKind::EndMarker)) s->value = star_expressions();
        finish(*s, b);
        return s;
    }
    if (w == "raise") {
        next();
        auto s = node<Raise>(b);
        if (!at(TokenKind::Newline) && !at_op(";") && !at(TokenKind::EndMarker)) {
            s->exc = expression();
            if (accept_kw("from")) s->cause = expression();
        }
        finish(*s, b);
        return s;
    }
    if (w == "global" || w == "nonlocal") {
        bool global = w == "global";
        next();
        std::vector<std::string> names;
        do names.push_back(expect_name("a name"));
        while (accept_op(","));
        if (global) {
            auto s = node<Global>(b);
            s->names = std::move(names);
            finish(*s, b);
            return s;
        }
        auto s = node<Nonlocal>(b);
        s->names = std::move(names);
        finish(*s, b);
        return s;
    }
    if (w == "del") {
        next();
        auto s = node<Delete>(b);
        do {
            if (at(TokenKind::Newline) || at_op(";")) break;
            ExprPtr target = binary(1);
            set_context(*target, ExprContext::Del);
            s->targets.push_back(std::move(target));
        } while (accept_op(","));
        if (s->targets.empty()) fail_expected("a target to delete");
        finish(*s, b);
        return s;
    }
    if (w == "assert") {
        next();
        auto s = node<Assert>(b);
        s->test = expression();
        if (accept_op(",")) s->msg = expression();
        finish(*s, b);
        return s;
    }
    if (w == "import") return import_statement();
    if (w == "from") return from_import_statement();
    if (w == "type" && looks_like_type_alias()) return type_alias_statement();
    return expression_statement();
}

StmtPtr Parser::expression_statement() {
    SourceLoc b = here();
    bool parenthesized = at_op("(");
    ExprPtr first = yield_or_star_expressions();
    if (at_op(":")) {
        next();
        auto s = node<AnnAssign>(b);
        switch (first->kind) {
            case ExprKind::Name: s->simple = !parenthesized; break;
            case ExprKind::Attribute: case ExprKind::Subscript: s->simple = false; break;
            case ExprKind::Tuple: fail_syntax("only single target (not tuple) can be annotated", first->span);
            case ExprKind::List: fail_syntax("only single target (not list) can be annotated", first->span);
            default: fail_syntax("illegal target for annotation", first->span);
        }
        set_context(*first, ExprContext::Store);
        s->target = std::move(first);
        s->annotation = expression();
        if (accept_op("=")) s->value = yield_or_star_expressions();
        finish(*s, b);
        return s;
    }
    OperatorKind op{};
    if (aug_operator(peek(), op)) {
        if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute && first->kind != ExprKind::Subscript)
            fail_syntax("illegal expression for augmented assignment", first->span);
        set_context(*first, ExprContext::Store);
        next();
        auto s = node<AugAssign>(b);
        s->target = std::move(first);
        s->op = op;
        s->value = yield_or_star_expressions();
        finish(*s, b);
        return s;
    }
    if (at_op("=")) {
        auto s = node<Assign>(b);
        ExprPtr value = std::move(first);
        while (accept_op("=")) {
            set_context(*value, ExprContext::Store);
            s->targets.push_back(std::move(value));
            value = yield_or_star_expressions();
        }
        s->value = std::move(value);
        finish(*s, b);
        return s;
    }
    auto s = node<ExprStmt>(b);
    s->value = std::move(first);
    finish(*s, b);
    return s;
}

StmtList Parser::block() {
    DepthGuard g(*this);
    expect_op(":");
    StmtList body;
    if (!at(TokenKind::Newline)) {
        simple_statements(body);
        return body;
    }
    next();
    if (!at(TokenKind::Indent)) fail_expected("an indented block");
    next();
    while (!at(TokenKind::Dedent) && !at(TokenKind::EndMarker)) statement(body);
    if (at(TokenKind::Dedent)) next();
    return body;
}

// ------------------------------------------------------------------------------- imports

StmtPtr Parser::import_statement() {
    SourceLoc b = here();
    next();
    auto s = node<Import>(b);
    do {
        Alias a;
        a.span.begin = here();
        a.name = expect_name("a module name");
        while (accept_op(".")) a.name.append(1, '.').append(expect_name("a module name"));
        if (accept_kw("as")) a.asname = expect_name("a name after `as`");
        a.span.end = prev_end();
        s->names.push_back(std::move(a));
    } while (accept_op(","));
    finish(*s, b);
    return s;
}

StmtPtr Parser::from_import_statement() {
    SourceLoc b = here();
    next();
    auto s = node<ImportFrom>(b);
    while (at_op(".") || at_op("...")) s->level += next().text == "." ? 1 : 3;
    if (!at_kw("import")) {
        s->module = expect_name("a module name");
        while (accept_op(".")) s->module.append(1, '.').append(expect_name("a module name"));
    }
    expect_kw("import");
    if (at_op("*")) {
        Alias a;
        a.span = peek().span;
        a.name = "*";
        next();
        s->names.push_back(std::move(a));
        finish(*s, b);
        return s;
    }
    bool paren = accept_op("(");
    do {
        if (paren && at_op(")")) break;
        Alias a;
        a.span.begin = here();
        a.name = expect_name("a name to import");
        if (accept_kw("as")) a.asname = expect_name("a name after `as`");
        a.span.end = prev_end();
        s->names.push_back(std::move(a));
    } while (accept_op(","));
    if (paren) expect_op(")");
    if (s->names.empty()) fail_expected("a name to import");
    finish(*s, b);
    return s;
}

// -------------------------------------------------------------------------- entry points

namespace {

ast::ModulePtr parse_module_impl(SourceFilePtr file, const Span* pin, DiagnosticEngine& diags) {
    int errors_before = diags.error_count();
    std::vector<Token> toks = tokenize(*file, diags);
    if (diags.error_count() > errors_before) return nullptr;
    Parser p(file, std::move(toks), diags);
    if (pin) p.pin_spans(*pin);
    auto m = std::make_shared<Module>();
    m->file = file;
    try {
        m->body = p.parse_file();
    } catch (const ParseAbort&) {
        return nullptr;
    }
    return m;
}

}  // namespace

ast::ModulePtr parse_module(SourceFilePtr file, DiagnosticEngine& diags) { return parse_module_impl(std::move(file), nullptr, diags); }

ast::ModulePtr parse_module_pinned(SourceFilePtr file, Span at, DiagnosticEngine& diags) { return parse_module_impl(std::move(file), &at, diags); }

ast::ExprPtr parse_expression(SourceFilePtr file, DiagnosticEngine& diags) {
    std::vector<Token> toks;
    int errors_before = diags.error_count();
    if (!tokenize_range(*file, 0, file->text().size(), {1, 1}, diags, toks) || diags.error_count() > errors_before)
        return nullptr;
    Parser p(file, std::move(toks), diags);
    try {
        return p.parse_eval_input();
    } catch (const ParseAbort&) {
        return nullptr;
    }
}

}  // namespace tp::frontend
