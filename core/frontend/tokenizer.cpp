// The Python 3.12 tokenizer: logical lines, INDENT/DEDENT from an indent stack (tabs to the
// next multiple of 8, checked against a tab size of 1 to catch ambiguous mixes, as CPython
// does), brackets suppressing NEWLINE/indentation, `\` continuations, numbers, names and whole
// string literals (f-strings scanned with PEP 701 nesting). Stops at the first lexical error.
#include <cctype>
#include <cstring>

#include "frontend/parser.h"

namespace tp::frontend {

namespace {

constexpr int kMaxBracketDepth = 200;
constexpr int kMaxIndentLevels = 100;
constexpr int kMaxFStringNesting = 150;

bool is_ascii_id_start(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z' ? true : c == '_'; }
bool is_ascii_id_char(unsigned char c) { return is_ascii_id_start(c) || (c >= '0' && c <= '9'); }

// Decodes one UTF-8 sequence at s[i]; returns its length (0 when malformed) and the code point.
int decode_utf8(std::string_view s, size_t i, uint32_t& cp) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    for (int k = 1; k < n; ++k) {
        unsigned char d = static_cast<unsigned char>(s[i + k]);
        if ((d >> 6) != 2) return 0;
        cp = (cp << 6) | (d & 0x3f);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

// Non-ASCII code points that may appear in identifiers. Python uses XID_Start/XID_Continue;
// this keeps letters of every script and rejects the punctuation, symbol and space blocks
// people paste by accident (smart quotes, NBSP, arrows, math operators, CJK punctuation).
bool is_unicode_id_char(uint32_t cp) {
    if (cp < 0xc0) return cp == 0xaa || cp == 0xb5 || cp == 0xba;
    if (cp == 0xd7 || cp == 0xf7) return false;
    if (cp >= 0x2000 && cp <= 0x206f) return false;
    if (cp >= 0x20a0 && cp <= 0x20cf) return false;
    if (cp >= 0x2190 && cp <= 0x2bff) return false;
    if (cp >= 0x3000 && cp <= 0x3003) return false;
    if (cp >= 0x3008 && cp <= 0x3020) return false;
    if (cp >= 0xfe10 && cp <= 0xfe6f) return false;
    if (cp >= 0xff01 && cp <= 0xff0f) return false;
    if (cp >= 0xff1a && cp <= 0xff20) return false;
    if (cp == 0xfeff || (cp >= 0xfff0 && cp <= 0xffff)) return false;
    if (cp >= 0x1f000 && cp <= 0x1faff) return false;  // emoji and pictographs
    return true;
}

const char* const kThreeCharOps[] = {"**=", "//=", ">>=", "<<=", "...", nullptr};
const char* const kTwoCharOps[] = {"->", ":=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "+=", "-=",
                                   "*=", "/=", "%=", "&=", "|=", "^=", "@=", nullptr};
const char kOneCharOps[] = "+-*/%@&|^~<>()[]{},:;.=";

bool is_newline_at(std::string_view s, size_t i) {
    return i < s.size() && (s[i] == '\n' || (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n'));
}
size_t newline_len(std::string_view s, size_t i) { return s[i] == '\r' ? 2 : 1; }

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

bool Lexer::number() {
    size_t b = i_, k = i_;
    auto digits = [&](auto pred) {  // digit groups separated by single underscores
        size_t start = k;
        while (k < end_ && (pred(s_[k]) || (s_[k] == '_' && k + 1 < end_ && pred(s_[k + 1])))) ++k;
        return k > start;
    };
    auto dec = [](char c) { return c >= '0' && c <= '9'; };
    bool ok = true, is_float = false;
    if (s_[k] == '0' && k + 1 < end_ && std::strchr("xXoObB", s_[k + 1]) && s_[k + 1] != 0) {
        char base = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[k + 1])));
        k += 2;
        if (k < end_ && s_[k] == '_') ++k;
        if (base == 'x') ok = digits([](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
        else if (base == 'o') ok = digits([](char c) { return c >= '0' && c <= '7'; });
        else ok = digits([](char c) { return c == '0' || c == '1'; });
        if (k < end_ && (std::isalnum(static_cast<unsigned char>(s_[k])) || s_[k] == '_')) {
            // `0b12`, `0o8`, `0x1g`: a digit of the wrong base belongs to this literal.
            if (std::isdigit(static_cast<unsigned char>(s_[k])) || s_[k] == '_') ok = false;
        }
    } else {
        if (s_[k] != '.') digits(dec);
        if (k < end_ && s_[k] == '.' ) {
            is_float = true;
            ++k;
            if (k < end_ && dec(s_[k])) digits(dec);
        }
        if (k < end_ && (s_[k] == 'e' || s_[k] == 'E')) {
            size_t save = k++;
            if (k < end_ && (s_[k] == '+' || s_[k] == '-')) ++k;
            if (k < end_ && dec(s_[k])) {
                digits(dec);
                is_float = true;
            } else {
                k = save + 1;
                ok = false;
            }
        }
        if (k < end_ && (s_[k] == 'j' || s_[k] == 'J')) ++k, is_float = true;
        else if (k < end_ && s_[k] == '_') ok = false, ++k;
        if (!is_float) {  // `007` is an error, `000` and `0_0` are fine
            bool leading_zero = s_[b] == '0';
            bool all_zero = true;
            for (size_t m = b; m < k; ++m)
                if (s_[m] != '0' && s_[m] != '_') all_zero = false;
            if (leading_zero && !all_zero) ok = false;
        }
    }
    // A literal running into a name is an error, except before the keywords Python allows
    // there (`1if x else 2`, `0x1for`).
    if (ok && k < end_ && (is_ascii_id_char(static_cast<unsigned char>(s_[k])) ||
                           static_cast<unsigned char>(s_[k]) >= 0x80)) {
        static const char* const kAllowed[] = {"and", "else", "for", "if", "in", "is", "not", "or"};
        bool allowed = false;
        for (const char* kw : kAllowed)
            if (s_.substr(k, std::strlen(kw)) == kw) allowed = true;
        if (!allowed) ok = false;
    }
    if (!ok) {
        while (k < end_ && (is_ascii_id_char(static_cast<unsigned char>(s_[k])) || s_[k] == '.')) ++k;
        return error(DiagKind::InvalidNumber, b, k, {std::string(s_.substr(b, k - b))});
    }
    push(TokenKind::Number, b, k);
    i_ = k;
    return true;
}

bool Lexer::string(size_t start, size_t quote) {
    bool fstring = false;
    for (size_t k = start; k < quote; ++k)
        if (s_[k] == 'f' || s_[k] == 'F') fstring = true;
    size_t e = scan_string_literal(s_, quote, end_, fstring);
    if (e == std::string_view::npos) {
        size_t line_end = quote;
        while (line_end < end_ && s_[line_end] != '\n' && s_[line_end] != '\r') ++line_end;
        return error(DiagKind::UnterminatedString, start, line_end);
    }
    Token t;
    t.kind = TokenKind::String;
    t.text.assign(s_.data() + start, e - start);
    t.offset = static_cast<uint32_t>(start);
    t.span.begin = loc_at(start);
    note_newlines(start, e);
    t.span.end = loc_at(e);
    out_.push_back(std::move(t));
    i_ = e;
    return true;
}

bool Lexer::name_or_string() {
    int plen = string_prefix_length(s_.substr(0, end_), i_);
    if (plen >= 0) return string(i_, i_ + plen);
    size_t b = i_, k = i_;
    while (k < end_) {
        unsigned char c = static_cast<unsigned char>(s_[k]);
        if (c < 0x80) {
            if (!is_ascii_id_char(c)) break;
            ++k;
            continue;
        }
        uint32_t cp = 0;
        int n = decode_utf8(s_, k, cp);
        if (n == 0 || !is_unicode_id_char(cp)) {
            if (k == b) return error(DiagKind::InvalidCharacter, k, k + (n ? n : 1),
                                     {n ? std::string(s_.substr(k, n)) : "\\x" + std::to_string(c)});
            break;
        }
        k += n;
    }
    push(TokenKind::Name, b, k);
    i_ = k;
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

}  // namespace

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

int string_prefix_length(std::string_view s, size_t pos) {
    size_t k = pos;
    while (k < s.size() && k - pos < 3 && std::isalpha(static_cast<unsigned char>(s[k]))) ++k;
    if (k >= s.size() || (s[k] != '"' && s[k] != '\'')) return -1;
    std::string p;
    for (size_t m = pos; m < k; ++m) p += static_cast<char>(std::tolower(static_cast<unsigned char>(s[m])));
    static const char* const kPrefixes[] = {"", "r", "u", "b", "f", "br", "rb", "fr", "rf"};
    for (const char* q : kPrefixes)
        if (p == q) {
            // The prefix must start the word: `xr"a"` is a name followed by a string.
            if (k > pos && pos > 0 && (is_ascii_id_char(static_cast<unsigned char>(s[pos - 1])) ||
                            static_cast<unsigned char>(s[pos - 1]) >= 0x80))
                return -1;
            return static_cast<int>(k - pos);
        }
    return -1;
}

size_t scan_string_literal(std::string_view s, size_t q, size_t limit, bool fstring, int depth) {
    const size_t npos = std::string_view::npos;
    if (depth > kMaxFStringNesting || q >= limit) return npos;
    char quote = s[q];
    bool triple = q + 2 < limit && s[q + 1] == quote && s[q + 2] == quote;
    size_t k = q + (triple ? 3 : 1);
    while (k < limit) {
        char c = s[k];
        if (c == '\\') {
            k += (k + 2 < limit && s[k + 1] == '\r' && s[k + 2] == '\n') ? 3 : 2;
            continue;
        }
        if (c == quote) {
            if (!triple) return k + 1;
            if (k + 2 < limit && s[k + 1] == quote && s[k + 2] == quote) return k + 3;
        }
        if (!triple && (c == '\n' || c == '\r')) return npos;
        if (fstring && c == '{') {
            if (k + 1 < limit && s[k + 1] == '{') {
                k += 2;
                continue;
            }
            size_t close = scan_replacement_field(s, k, limit, depth + 1);
            if (close == npos) return npos;
            k = close + 1;
            continue;
        }
        ++k;
    }
    return npos;
}

size_t scan_replacement_field(std::string_view s, size_t open, size_t limit, int depth) {
    const size_t npos = std::string_view::npos;
    if (depth > kMaxFStringNesting) return npos;
    int nest = 0;
    size_t k = open + 1;
    while (k < limit) {
        char c = s[k];
        if (c == '"' || c == '\'' || std::isalpha(static_cast<unsigned char>(c))) {
            int plen = string_prefix_length(s.substr(0, limit), k);
            if (plen >= 0) {
                bool f = false;
                for (int m = 0; m < plen; ++m) f = f || s[k + m] == 'f' || s[k + m] == 'F';
                size_t e = scan_string_literal(s, k + plen, limit, f, depth + 1);
                if (e == npos) return npos;
                k = e;
                continue;
            }
            size_t from = k;
            while (k < limit && is_ascii_id_char(static_cast<unsigned char>(s[k]))) ++k;
            if (k == from) ++k;  // always make progress
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++nest;
        else if (c == ')' || c == ']') --nest;
        else if (c == '}') {
            if (nest == 0) return k;
            --nest;
        } else if (c == ':' && nest == 0) {
            // The format spec: literal text with nested replacement fields, up to the `}`.
            ++k;
            while (k < limit && s[k] != '}') {
                if (s[k] == '{') {
                    size_t close = scan_replacement_field(s, k, limit, depth + 1);
                    if (close == npos) return npos;
                    k = close + 1;
                } else if (s[k] == '\\') {
                    k += 2;
                } else {
                    ++k;
                }
            }
            return k < limit ? k : npos;
        } else if (c == '#') {
            while (k < limit && s[k] != '\n') ++k;
            continue;
        }
        ++k;
    }
    return npos;
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
