// The Python 3.12 tokenizer: logical lines, INDENT/DEDENT from an indent stack (tabs to the
// next multiple of 8, checked against a tab size of 1 to catch ambiguous mixes, as CPython
// does), brackets suppressing NEWLINE/indentation, `\` continuations, comments, operators and
// the entry points. Numbers, names and string literals (f-strings scanned with PEP 701
// nesting) are in tokenizer_literals.cpp. Stops at the first lexical error.
#include <cctype>
#include <cstring>

#include "frontend/lexer.h"

namespace tp::frontend {

using namespace lex_detail;

namespace {

constexpr int kMaxBracketDepth = 200;
constexpr int kMaxIndentLevels = 100;

const char* const kThreeCharOps[] = {"**=", "//=", ">>=", "<<=", "...", nullptr};
const char* const kTwoCharOps[] = {"->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=",
                                   "*=", "/=", "%=", "&=", "|=", "^=", "@=", nullptr};
const char kOneCharOps[] = "+-*/%@&|^~<>()[]{},:;.=";

bool is_newline_at(std::string_view s, size_t i) {
    return i < s.size() && (s[i] == '\n' || (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n'));
}
size_t newline_len(std::string_view s, size_t i) { return s[i] == '\r' ? 2 : 1; }

}  // namespace

namespace lex_detail {

bool Lexer::indentation() {
    int col = 0, alt = 0;
    size_t k = i_;
    for (; k < end_; ++k) {
        char c = s_[k];
        if (c == ' ') ++col, ++alt;
        else if (c == '\t') col = (col / 8 + 1) * 8, ++alt;
        else if (c == '\f') col = alt = 0;
        else break;
    }
    i_ = k;
    // Blank lines, comment-only lines and the end of input do not take part in indentation.
    if (k >= end_ || s_[k] == '#' || is_newline_at(s_, k) || s_[k] == '\r') return true;
    if (col == indents_.back()) {
        if (alt != alt_indents_.back()) return error(DiagKind::MixedTabsSpaces, line_start_, k);
    } else if (col > indents_.back()) {
        if (alt <= alt_indents_.back()) return error(DiagKind::MixedTabsSpaces, line_start_, k);
        if (static_cast<int>(indents_.size()) > kMaxIndentLevels)
            return error(DiagKind::InvalidSyntax, line_start_, k, {"too many levels of indentation"});
        indents_.push_back(col);
        alt_indents_.push_back(alt);
        push_marker(TokenKind::Indent, k);
    } else {
        while (indents_.size() > 1 && col < indents_.back()) {
            indents_.pop_back();
            alt_indents_.pop_back();
            push_marker(TokenKind::Dedent, k);
        }
        if (col != indents_.back()) return error(DiagKind::InconsistentDedent, line_start_, k);
        if (alt != alt_indents_.back()) return error(DiagKind::MixedTabsSpaces, line_start_, k);
    }
    return true;
}

bool Lexer::op() {
    size_t b = i_;
    size_t len = 0;
    // Multi-character operators end in one of a few characters; test them only then.
    char c1 = b + 1 < end_ ? s_[b + 1] : 0, c2 = b + 2 < end_ ? s_[b + 2] : 0;
    if (c2 == '=' || c2 == '.')
        for (int n = 0; kThreeCharOps[n] && !len; ++n)
            if (s_.substr(b, 3) == kThreeCharOps[n]) len = 3;
    if (!len && (c1 == '=' || c1 == '>' || c1 == '*' || c1 == '/' || c1 == '<'))
        for (int n = 0; kTwoCharOps[n] && !len; ++n)
            if (s_.substr(b, 2) == kTwoCharOps[n]) len = 2;
    if (!len && std::strchr(kOneCharOps, s_[b]) && s_[b] != 0) len = 1;
    if (!len) {
        std::string shown = s_[b] == 0 ? "\\0" : std::string(1, s_[b]);
        return error(DiagKind::InvalidCharacter, b, b + 1, {shown});
    }
    char c = s_[b];
    if (len == 1 && (c == '(' || c == '[' || c == '{')) {
        if (static_cast<int>(brackets_.size()) >= kMaxBracketDepth)
            return error(DiagKind::InvalidSyntax, b, b + 1, {"too many nested parentheses"});
        brackets_.push_back({c, b});
        push(TokenKind::Op, b, b + 1);
        brackets_.back().second = out_.size() - 1;
    } else if (len == 1 && (c == ')' || c == ']' || c == '}')) {
        char want = c == ')' ? '(' : c == ']' ? '[' : '{';
        if (brackets_.empty() || brackets_.back().first != want)
            return error(DiagKind::UnmatchedBracket, b, b + 1, {std::string(1, c)});
        brackets_.pop_back();
        push(TokenKind::Op, b, b + 1);
    } else {
        push(TokenKind::Op, b, b + len);
    }
    i_ = b + len;
    return true;
}

bool Lexer::run() {
    bool at_bol = !range_mode_;
    if (!range_mode_ && s_.substr(i_, 3) == "\xEF\xBB\xBF") {
        i_ += 3;
        line_start_ += 3;  // columns count from after the BOM
    }
    while (true) {
        if (at_bol && brackets_.empty()) {
            if (!indentation()) return false;
            at_bol = false;
        }
        while (i_ < end_ && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\f' ||
                             (s_[i_] == '\r' && !is_newline_at(s_, i_))))
            ++i_;
        if (i_ >= end_) break;
        char c = s_[i_];
        if (c == '#') {
            while (i_ < end_ && s_[i_] != '\n' && !is_newline_at(s_, i_)) ++i_;
            continue;
        }
        if (is_newline_at(s_, i_)) {
            size_t n = newline_len(s_, i_);
            if (brackets_.empty() && line_has_tokens_ && !range_mode_) {
                push(TokenKind::Newline, i_, i_ + n);
                out_.back().span.end = loc_at(i_ + 1);
                line_has_tokens_ = false;
            }
            i_ += n;
            ++line_;
            line_start_ = i_;
            at_bol = !range_mode_ && brackets_.empty();
            continue;
        }
        if (c == '\\') {
            if (is_newline_at(s_, i_ + 1)) {
                i_ += 1 + newline_len(s_, i_ + 1);
                ++line_;
                line_start_ = i_;
                if (i_ >= end_) return error(DiagKind::InvalidSyntax, i_ - 1, i_, {"unexpected end of file after `\\`"});
                continue;
            }
            if (i_ + 1 >= end_) return error(DiagKind::InvalidSyntax, i_, i_ + 1, {"unexpected end of file after `\\`"});
            return error(DiagKind::InvalidSyntax, i_, i_ + 1,
                         {"unexpected character after line continuation character `\\`"});
        }
        line_has_tokens_ = true;
        unsigned char uc = static_cast<unsigned char>(c);
        bool ok;
        if (std::isdigit(uc) || (c == '.' && i_ + 1 < end_ && std::isdigit(static_cast<unsigned char>(s_[i_ + 1]))))
            ok = number();
        else if (c == '"' || c == '\'')
            ok = string(i_, i_);
        else if (is_ascii_id_start(uc) || uc >= 0x80)
            ok = name_or_string();
        else
            ok = op();
        if (!ok) return false;
    }
    if (!brackets_.empty()) {
        const Token& open = out_[brackets_.back().second];
        diags_.report(DiagKind::UnmatchedBracket, open.span, {open.text});
        return false;
    }
    if (!range_mode_) {
        if (line_has_tokens_) push_marker(TokenKind::Newline, end_);
        while (indents_.size() > 1) {
            indents_.pop_back();
            push_marker(TokenKind::Dedent, end_);
        }
    }
    push_marker(TokenKind::EndMarker, end_);
    return true;
}

}  // namespace lex_detail

const char* token_kind_name(TokenKind k) {
    switch (k) {
        case TokenKind::Name: return "NAME";
        case TokenKind::Number: return "NUMBER";
        case TokenKind::String: return "STRING";
        case TokenKind::Op: return "OP";
        case TokenKind::Newline: return "NEWLINE";
        case TokenKind::Indent: return "INDENT";
        case TokenKind::Dedent: return "DEDENT";
        case TokenKind::EndMarker: return "ENDMARKER";
    }
    return "?";
}

std::string describe_token(const Token& t) {
    switch (t.kind) {
        case TokenKind::Newline: return "newline";
        case TokenKind::Indent: return "indent";
        case TokenKind::Dedent: return "unindent";
        case TokenKind::EndMarker: return "end of input";
        case TokenKind::String: return "string literal";
        case TokenKind::Number: return "number `" + t.text + "`";
        default: return "`" + t.text + "`";
    }
}

bool is_keyword(std::string_view w) {
    if (w.size() < 2 || w.size() > 8) return false;
    static constexpr std::string_view kKeywords[] = {
        "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
        "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
        "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
        "with", "yield"};
    for (std::string_view k : kKeywords)
        if (k.size() == w.size() && k[0] == w[0] && k == w) return true;
    return false;
}

std::vector<Token> tokenize(const SourceFile& file, DiagnosticEngine& diags) {
    std::vector<Token> out;
    out.reserve(file.text().size() / 4 + 8);
    Lexer lx(file, 0, file.text().size(), {1, 1}, diags, out, false);
    if (!lx.run()) {
        Token end;
        end.kind = TokenKind::EndMarker;
        if (!out.empty()) end.span = {out.back().span.end, out.back().span.end};
        out.push_back(std::move(end));
    }
    return out;
}

bool tokenize_range(const SourceFile& file, size_t begin, size_t end, SourceLoc loc, DiagnosticEngine& diags,
                    std::vector<Token>& out) {
    Lexer lx(file, begin, end, loc, diags, out, true);
    return lx.run();
}

}  // namespace tp::frontend
