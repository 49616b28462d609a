// Definitions: parameter lists (shared with lambda), PEP 695 type parameters, `def`, `class`
// and the `type X = ...` alias statement, which takes type parameters the same way.
#include "frontend/parser_helpers.h"

#include <optional>
#include <unordered_map>
#include <utility>

namespace tp::frontend {

using namespace ast;
using namespace parse_detail;

namespace {

// CPython refuses `def f(A, A)` when it compiles the file; a kernel with two parameters of one
// name would otherwise compile and fail only when run, with no line to point at. A hash, as
// fuzzed parameter lists can be long. Returns (first, repeat).
std::optional<std::pair<const Arg*, const Arg*>> duplicate_parameter(const Arguments& a) {
    std::vector<const Arg*> all;
    for (const auto* list : {&a.posonlyargs, &a.args, &a.kwonlyargs})
        for (const auto& p : *list) all.push_back(&p);
    if (a.vararg) all.push_back(&*a.vararg);
    if (a.kwarg) all.push_back(&*a.kwarg);
    std::unordered_map<std::string_view, const Arg*> seen;
    for (const Arg* p : all)
        if (auto [it, fresh] = seen.emplace(p->arg, p); !fresh) return std::make_pair(it->second, p);
    return std::nullopt;
}

}  // namespace

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
    if (auto dup = duplicate_parameter(*a))
        fail_syntax("duplicate argument `" + dup->second->arg + "` in function definition; the first is at line " +
                        std::to_string(dup->first->span.begin.line),
                    dup->second->span);
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

}  // namespace tp::frontend
