// Statements: simple statements, blocks, definitions (def/class with PEP 695 type
// parameters), control flow, with/try, imports, plus the public parse entry points and the
// shared token/error helpers.
#include "frontend/parser_common.h"

namespace tp::frontend {

using namespace ast;

namespace {

template <class T> std::unique_ptr<T> node(SourceLoc b) {
    auto n = std::make_unique<T>();
    n->span.begin = b;
    return n;
}

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

StmtPtr Parser::compound_statement(ExprList decorators) {
    const Token& t = peek();
    SourceLoc b = here();
    if (t.is_name("def")) return function_def(std::move(decorators), b, false);
    if (t.is_name("class")) return class_def(std::move(decorators), b);
    if (t.is_name("async") && peek(1).is_name("def")) {
        next();
        return function_def(std::move(decorators), b, true);
    }
    if (!decorators.empty()) fail_expected("`def` or `class` after a decorator");
    if (t.is_name("if")) return if_statement(b);
    if (t.is_name("while")) return while_statement(b);
    if (t.is_name("for")) return for_statement(b, false);
    if (t.is_name("with")) return with_statement(b, false);
    if (t.is_name("try")) return try_statement(b);
    if (t.is_name("async")) {
        next();
        if (at_kw("for")) return for_statement(b, true);
        if (at_kw("with")) return with_statement(b, true);
        fail_expected("`def`, `for` or `with` after `async`");
    }
    fail_expected("a statement");
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

// --------------------------------------------------------------------------- definitions

std::shared_ptr<Arguments> Parser::parameters(bool lambda, std::string_view close) {
    auto a = std::make_shared<Arguments>();
    a->span.begin = here();
    bool star = false, bare_star = false, seen_default = false, slash = false;
    auto param = [&](bool star_annotation) {
        Arg p;
        p.span.begin = here();
        p.arg = expect_name("a parameter name");
        if (!lambda && accept_op(":")) {
            if (star_annotation && at_op("*")) {
                SourceLoc sb = here();
                next();
                auto s = node<Starred>(sb);
                s->value = expression();
                finish(*s, sb);
                p.annotation = std::move(s);
            } else {
                p.annotation = expression();
            }
        }
        p.span.end = prev_end();
        return p;
    };
    while (!at_op(close)) {
        if (a->kwarg) fail_syntax("arguments cannot follow var-keyword argument");
        if (at_op("/")) {
            if (slash) fail_syntax("`/` may appear only once");
            if (star) fail_syntax("`/` must be ahead of `*`");
            if (a->args.empty()) fail_syntax("at least one argument must precede `/`");
            next();
            slash = true;
            a->posonlyargs = std::move(a->args);
            a->args.clear();
        } else if (accept_op("**")) {
            a->kwarg = param(false);
            if (at_op("=")) fail_syntax("var-keyword argument cannot have default value");
        } else if (accept_op("*")) {
            if (star) fail_syntax("`*` argument may appear only once");
            star = true;
            if (at_op(",") || at_op(close)) {
                bare_star = true;
            } else {
                a->vararg = param(true);
                if (at_op("=")) fail_syntax("var-positional argument cannot have default value");
            }
        } else {
            Arg p = param(false);
            ExprPtr dflt;
            if (accept_op("=")) dflt = expression();
            if (star) {
                a->kwonlyargs.push_back(std::move(p));
                a->kw_defaults.push_back(std::move(dflt));
            } else {
                if (dflt) {
                    seen_default = true;
                    a->defaults.push_back(std::move(dflt));
                } else if (seen_default) {
                    fail_syntax("parameter without a default follows parameter with a default", p.span);
                }
                a->args.push_back(std::move(p));
            }
        }
        if (!accept_op(",")) break;
    }
    if (bare_star && a->kwonlyargs.empty()) fail_syntax("named arguments must follow bare `*`");
    a->span.end = prev_end();
    return a;
}

std::vector<TypeParam> Parser::type_params() {
    DepthGuard g(*this);
    expect_op("[");
    std::vector<TypeParam> out;
    while (!at_op("]")) {
        TypeParam tp;
        tp.span.begin = here();
        if (accept_op("**")) tp.kind = 1;
        else if (accept_op("*")) tp.kind = 2;
        tp.name = expect_name("a type parameter name");
        if (tp.kind == 0 && accept_op(":")) tp.bound = expression();
        tp.span.end = prev_end();
        out.push_back(std::move(tp));
        if (!accept_op(",")) break;
    }
    expect_op("]");
    if (out.empty()) fail_syntax("type parameter list cannot be empty");
    return out;
}

StmtPtr Parser::function_def(ExprList decorators, SourceLoc begin, bool is_async) {
    expect_kw("def");
    auto f = node<FunctionDef>(begin);
    f->is_async = is_async;
    f->decorator_list = std::move(decorators);
    f->name = expect_name("a function name");
    if (at_op("[")) f->type_params = type_params();
    expect_op("(");
    {
        DepthGuard g(*this);
        f->args = parameters(false, ")");
    }
    expect_op(")");
    if (accept_op("->")) f->returns = expression();
    f->body = block();
    finish(*f, begin);
    return f;
}

StmtPtr Parser::class_def(ExprList decorators, SourceLoc begin) {
    expect_kw("class");
    auto c = node<ClassDef>(begin);
    c->decorator_list = std::move(decorators);
    c->name = expect_name("a class name");
    if (at_op("[")) c->type_params = type_params();
    if (at_op("(")) {
        DepthGuard g(*this);
        next();
        Call call;
        call_arguments(call, ")");
        c->bases = std::move(call.args);
        c->keywords = std::move(call.keywords);
    }
    c->body = block();
    finish(*c, begin);
    return c;
}

bool Parser::looks_like_type_alias() const {
    return peek(1).kind == TokenKind::Name && !is_keyword(peek(1).text) && (peek(2).is_op("=") || peek(2).is_op("["));
}

StmtPtr Parser::type_alias_statement() {
    SourceLoc b = here();
    next();  // `type`
    auto s = node<TypeAlias>(b);
    auto name = node<Name>(here());
    name->id = next().text;
    name->ctx = ExprContext::Store;
    finish(*name, name->span.begin);
    s->name = std::move(name);
    if (at_op("[")) s->type_params = type_params();
    expect_op("=");
    s->value = expression();
    finish(*s, b);
    return s;
}

// -------------------------------------------------------------------------- control flow

StmtPtr Parser::if_statement(SourceLoc begin) {
    next();  // `if` or `elif`
    auto s = node<If>(begin);
    s->test = named_expression();
    s->body = block();
    if (at_kw("elif")) {
        s->orelse.push_back(if_statement(here()));
    } else if (accept_kw("else")) {
        s->orelse = block();
    }
    finish(*s, begin);
    return s;
}

StmtPtr Parser::while_statement(SourceLoc begin) {
    expect_kw("while");
    auto s = node<While>(begin);
    s->test = named_expression();
    s->body = block();
    if (accept_kw("else")) s->orelse = block();
    finish(*s, begin);
    return s;
}

StmtPtr Parser::for_statement(SourceLoc begin, bool is_async) {
    expect_kw("for");
    auto s = node<For>(begin);
    s->is_async = is_async;
    s->target = star_targets();
    expect_kw("in");
    s->iter = star_expressions();
    s->body = block();
    if (accept_kw("else")) s->orelse = block();
    finish(*s, begin);
    return s;
}

WithItem Parser::with_item() {
    WithItem w;
    w.span.begin = here();
    w.context_expr = expression();
    if (accept_kw("as")) {
        w.optional_vars = star_target();
        set_context(*w.optional_vars, ExprContext::Store);
        if (!at_op(",") && !at_op(")") && !at_op(":")) fail_expected("`,`, `)` or `:` after a `with` target");
    }
    w.span.end = prev_end();
    return w;
}

StmtPtr Parser::with_statement(SourceLoc begin, bool is_async) {
    expect_kw("with");
    auto s = node<With>(begin);
    s->is_async = is_async;
    if (at_op("(")) {
        // `with (a as b, c):` groups items; `with (a, b) as c:` is one tuple item. Try the
        // grouped form first and fall back, as CPython's grammar does.
        size_t save = pos_;
        ++speculating_;
        bool grouped = false;
        try {
            DepthGuard g(*this);
            next();
            std::vector<WithItem> items;
            do {
                if (at_op(")")) break;
                items.push_back(with_item());
            } while (accept_op(","));
            expect_op(")");
            if (at_op(":") && !items.empty()) {
                s->items = std::move(items);
                grouped = true;
            }
        } catch (const ParseAbort&) {
        }
        --speculating_;
        if (!grouped) {
            pos_ = save;
            s->items.clear();
        }
    }
    if (s->items.empty()) {
        do s->items.push_back(with_item());
        while (accept_op(","));
    }
    s->body = block();
    finish(*s, begin);
    return s;
}

StmtPtr Parser::try_statement(SourceLoc begin) {
    expect_kw("try");
    auto s = node<Try>(begin);
    s->body = block();
    int star_kind = -1;  // -1 unknown, 0 plain except, 1 except*
    while (at_kw("except")) {
        ExceptHandler h;
        h.span.begin = here();
        next();
        bool star = accept_op("*");
        if (star_kind >= 0 && star_kind != static_cast<int>(star))
            fail_syntax("cannot have both `except` and `except*` on the same `try`");
        star_kind = star;
        if (!at_op(":")) {
            h.type = expression();
            if (at_op(",")) fail_syntax("multiple exception types must be parenthesized", h.type->span);
            if (accept_kw("as")) h.name = expect_name("a name after `as`");
        } else if (star) {
            fail_expected("an exception type after `except*`");
        }
        h.body = block();
        h.span.end = prev_end();
        s->handlers.push_back(std::move(h));
    }
    s->is_star = star_kind == 1;
    if (!s->handlers.empty() && accept_kw("else")) s->orelse = block();
    if (accept_kw("finally")) s->finalbody = block();
    if (s->handlers.empty() && s->finalbody.empty()) fail_expected("`except` or `finally` block");
    finish(*s, begin);
    return s;
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

ast::ModulePtr parse_module(SourceFilePtr file, DiagnosticEngine& diags) {
    int errors_before = diags.error_count();
    std::vector<Token> toks = tokenize(*file, diags);
    if (diags.error_count() > errors_before) return nullptr;
    Parser p(file, std::move(toks), diags);
    auto m = std::make_shared<Module>();
    m->file = file;
    try {
        m->body = p.parse_file();
    } catch (const ParseAbort&) {
        return nullptr;
    }
    return m;
}

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
