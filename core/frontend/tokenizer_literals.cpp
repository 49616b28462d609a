// Tokens scanned character by character: numbers (underscores, bases, the keywords allowed
// right after a literal), names with their Unicode identifier rules, and whole string
// literals, including the PEP 701 scanners that find where an f-string and its replacement
// fields end (also used by the parser for f-string fields). Line and indentation handling is
// in tokenizer.cpp.
#include <cctype>
#include <cstring>

#include "frontend/lexer.h"

namespace tp::frontend {

using namespace lex_detail;

namespace {

constexpr int kMaxFStringNesting = 150;

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

}  // namespace

namespace lex_detail {

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

}  // namespace lex_detail

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

}  // namespace tp::frontend
