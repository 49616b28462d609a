// Internal to the tokenizer: the Lexer class, whose line, indentation and bracket machinery
// is in tokenizer.cpp and whose number, name and string scanners are in
// tokenizer_literals.cpp, plus the ASCII identifier tests both files use. A named namespace
// rather than an anonymous one so that both files can define Lexer's members.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "frontend/parser.h"

namespace tp::frontend::lex_detail {

inline bool is_ascii_id_start(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ? true : c == '_'; }
inline bool is_ascii_id_char(unsigned char c) { return is_ascii_id_start(c) || (c >= '0' && c <= '9'); }

class Lexer {
public:
    Lexer(const SourceFile& file, size_t begin, size_t end, SourceLoc loc, DiagnosticEngine& diags,
          std::vector<Token>& out, bool range_mode)
        : s_(file.text()), i_(begin), end_(end), line_(loc.line), line_start_(begin - (loc.col - 1)),
          diags_(diags), out_(out), range_mode_(range_mode) {}

    bool run();

private:
    SourceLoc loc_at(size_t off) const {
        return {line_, static_cast<uint32_t>(off - line_start_ + 1)};
    }
    void push(TokenKind k, size_t b, size_t e) {
        Token t;
        t.kind = k;
        t.text.assign(s_.data() + b, e - b);
        t.span = {loc_at(b), loc_at(e)};
        t.offset = static_cast<uint32_t>(b);
        out_.push_back(std::move(t));
    }
    void push_marker(TokenKind k, size_t at) {
        Token t;
        t.kind = k;
        t.span = {loc_at(at), loc_at(at)};
        t.offset = static_cast<uint32_t>(at);
        out_.push_back(std::move(t));
    }
    bool error(DiagKind kind, size_t b, size_t e, std::vector<std::string> args = {}) {
        diags_.report(kind, Span{loc_at(b), loc_at(e)}, std::move(args));
        return false;
    }
    // Advances over a newline inside a token (strings, continuations) keeping line numbers.
    void note_newlines(size_t b, size_t e) {
        for (size_t k = b; k < e; ++k)
            if (s_[k] == '\n') {
                ++line_;
                line_start_ = k + 1;
            }
    }
    bool indentation();
    bool number();
    bool string(size_t start, size_t quote);
    bool name_or_string();
    bool op();

    std::string_view s_;
    size_t i_, end_;
    uint32_t line_;
    size_t line_start_;
    DiagnosticEngine& diags_;
    std::vector<Token>& out_;
    bool range_mode_;
    std::vector<std::pair<char, size_t>> brackets_;
    std::vector<int> indents_{0}, alt_indents_{0};
    bool line_has_tokens_ = false;
};

}  // namespace tp::frontend::lex_detail
