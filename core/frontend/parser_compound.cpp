// Compound statements: the dispatcher for statements that own a block, and the control flow
// ones (if/elif/else, while, for, with including the parenthesized-items form, try/except*).
// Function and class definitions are in parser_definitions.cpp, `match` in parser_pattern.cpp.
#include "frontend/parser_helpers.h"

namespace tp::frontend {

using namespace ast;
using namespace parse_detail;

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

// -------------------------------------------------------------------------- control flow

StmtPtr Parser::if_statement(SourceLoc begin) {
    next();  // `if` or `elif`
    auto s = node<If>(begin);
    s->test = named_expression();
    s->body = block();
    if (at_kw("elif")) {
        // Each elif nests the next If in this one's orelse: a level of the tree, and of this
        // function's recursion.
        ChainGuard chain(*this);
        chain.link();
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

}  // namespace tp::frontend
