// The recursive-descent parser shared by parser_stmt.cpp (simple statements, blocks, entry
// points), parser_compound.cpp (control flow), parser_definitions.cpp (def/class, parameters),
// parser_expr.cpp (the expression ladder), parser_atoms.cpp (atoms, displays, targets),
// parser_pattern.cpp (match patterns), parser_literals.cpp (numbers, escapes) and
// parser_strings.cpp (string literals, f-strings). Internal to the front end.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/parser.h"

namespace tp::frontend {

// Thrown to unwind after the first syntax error (already reported unless speculating).
struct ParseAbort {};

class Parser {
public:
    Parser(SourceFilePtr file, std::vector<Token> tokens, DiagnosticEngine& diags)
        : file_(std::move(file)), toks_(std::move(tokens)), diags_(diags) {}

    // Gives every token, and so every node, the span `at` (parse_module_pinned).
    void pin_spans(Span at) {
        pin_ = at;
        for (auto& t : toks_) t.span = at;
    }

    ast::StmtList parse_file();
    ast::ExprPtr parse_eval_input();

    // ---- token helpers
    const Token& peek(size_t k = 0) const {
        size_t i = pos_ + k;
        return i < toks_.size() ? toks_[i] : toks_.back();
    }
    const Token& next() {
        const Token& t = peek();
        if (pos_ < toks_.size() - 1) ++pos_;
        return t;
    }
    bool at_op(std::string_view s) const { return peek().is_op(s); }
    bool at_kw(std::string_view s) const { return peek().is_name(s); }
    bool at(TokenKind k) const { return peek().kind == k; }
    bool accept_op(std::string_view s) {
        if (!at_op(s)) return false;
        next();
        return true;
    }
    bool accept_kw(std::string_view s) {
        if (!at_kw(s)) return false;
        next();
        return true;
    }
    const Token& expect_op(std::string_view s);
    const Token& expect_kw(std::string_view s);
    std::string expect_name(const char* what);
    void expect_newline();
    SourceLoc prev_end() const;  // end of the last real token consumed
    SourceLoc here() const { return peek().span.begin; }
    template <class N> void finish(N& n, SourceLoc begin) const { n.span = {begin, prev_end()}; }

    [[noreturn]] void fail(DiagKind kind, Span span, std::vector<std::string> args = {});
    [[noreturn]] void fail_syntax(const std::string& msg, Span span);
    [[noreturn]] void fail_syntax(const std::string& msg) { fail_syntax(msg, peek().span); }
    [[noreturn]] void fail_expected(const std::string& what);

    // Bounds recursion: nested brackets, blocks and unary chains each take a level.
    struct DepthGuard {
        Parser& p;
        explicit DepthGuard(Parser& parser);
        ~DepthGuard() { --p.depth_, --p.tree_depth_; }
    };
    // Bounds the tree's depth, which left-associative chains (`a.b.c...`, `a+b+...`, `f()()`)
    // grow without recursing here: every later pass (the AST dump, the evaluator) recurses on
    // it. Each link() of a chain takes a level of tree_depth_ until the guard goes.
    struct ChainGuard {
        Parser& p;
        int links = 0;
        explicit ChainGuard(Parser& parser) : p(parser) {}
        void link();
        ~ChainGuard() { p.tree_depth_ -= links; }
    };

    // ---- statements (parser_stmt.cpp, parser_compound.cpp, parser_definitions.cpp)
    void statement(ast::StmtList& out);
    void simple_statements(ast::StmtList& out);
    ast::StmtPtr simple_statement();
    ast::StmtPtr expression_statement();
    ast::StmtList block();
    ast::StmtPtr compound_statement(ast::ExprList decorators);  // FunctionDef/ClassDef spans start at `def`/`class`, as in CPython
    ast::StmtPtr function_def(ast::ExprList decorators, SourceLoc begin, bool is_async);
    ast::StmtPtr class_def(ast::ExprList decorators, SourceLoc begin);
    ast::StmtPtr if_statement(SourceLoc begin);
    ast::StmtPtr for_statement(SourceLoc begin, bool is_async);
    ast::StmtPtr while_statement(SourceLoc begin);
    ast::StmtPtr with_statement(SourceLoc begin, bool is_async);
    ast::StmtPtr try_statement(SourceLoc begin);
    ast::StmtPtr import_statement();
    ast::StmtPtr from_import_statement();
    ast::StmtPtr type_alias_statement();
    bool looks_like_match();
    bool looks_like_type_alias() const;
    std::shared_ptr<ast::Arguments> parameters(bool lambda, std::string_view close);
    std::vector<ast::TypeParam> type_params();
    ast::WithItem with_item();

    // ---- expressions (parser_expr.cpp, parser_atoms.cpp)
    ast::ExprPtr expression();              // conditional expressions and lambdas
    ast::ExprPtr named_expression();        // allows `name := value`
    ast::ExprPtr star_expressions();        // `a, *b` -> Tuple
    ast::ExprPtr star_named_expression();   // `*a` or a named expression
    ast::ExprPtr yield_or_star_expressions();
    ast::ExprPtr yield_expression();
    ast::ExprPtr disjunction();
    ast::ExprPtr conjunction();
    ast::ExprPtr inversion();
    ast::ExprPtr comparison();
    ast::ExprPtr binary(int min_prec);
    ast::ExprPtr factor();
    ast::ExprPtr power();
    ast::ExprPtr primary();
    ast::ExprPtr atom();
    ast::ExprPtr lambda_expression();
    ast::ExprPtr paren_expression();
    ast::ExprPtr list_display();
    ast::ExprPtr brace_display();
    ast::ExprPtr subscript_slices();
    ast::ExprPtr slice_item();
    void call_arguments(ast::Call& call, std::string_view close);
    std::vector<ast::Comprehension> comprehension_clauses();
    ast::ExprPtr star_targets();            // for-loop and comprehension targets
    ast::ExprPtr star_target();
    void set_context(ast::Expr& e, ast::ExprContext ctx);

    // ---- literals (parser_literals.cpp, parser_strings.cpp)
    ast::ExprPtr number_literal(const Token& t);
    ast::ExprPtr string_literals();
    struct StringPiece;
    void fstring_body(const Token& tok, size_t begin, size_t end, bool raw, ast::ExprList& out, int nesting);
    void fstring_field(const Token& tok, size_t& k, size_t end, bool raw, ast::ExprList& out, int nesting);
    SourceLoc loc_in_token(const Token& t, size_t offset) const;
    std::string decode_escapes(const Token& t, std::string_view body, bool bytes, bool raw);

    // ---- patterns (parser_pattern.cpp)
    ast::StmtPtr match_statement(SourceLoc begin);
    ast::PatternPtr patterns();
    ast::PatternPtr pattern();
    ast::PatternPtr or_pattern();
    ast::PatternPtr closed_pattern();
    ast::ExprPtr pattern_literal_expr();
    ast::ExprPtr pattern_value_name();
    ast::PatternPtr sequence_or_group(std::string_view close);
    ast::PatternPtr mapping_pattern();
    ast::PatternPtr star_pattern();
    void class_pattern_args(ast::MatchClass& mc);

    SourceFilePtr file_;
    std::vector<Token> toks_;
    size_t pos_ = 0;
    DiagnosticEngine& diags_;
    int depth_ = 0;
    int tree_depth_ = 0;  // depth_'s levels plus the links of the chains being parsed
    std::optional<Span> pin_;  // set by pin_spans: f-string parts re-lexed later take it too
    int speculating_ = 0;  // > 0 while trying an alternative; errors then are not reported
};

// Python's str/bytes repr, used by ast::dump and by diagnostics.
std::string py_repr_str(std::string_view utf8);
std::string py_repr_bytes(std::string_view bytes);
std::string py_repr_float(double v);
std::string py_repr_imag(double v);

}  // namespace tp::frontend
