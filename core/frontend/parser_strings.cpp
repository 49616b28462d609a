// Literals: number values (ints beyond int64 kept as decimal text), string and bytes escapes,
// implicit concatenation, and f-strings split into JoinedStr/FormattedValue with the
// replacement-field expressions parsed from their own positions in the file (PEP 701).
#include <charconv>
#include <cmath>
#include <cstring>

#include "frontend/parser_common.h"

namespace tp::frontend {

using namespace ast;

namespace {

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xc0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xe0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
        out += static_cast<char>(0xf0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
        out += static_cast<char>(0x80 | (cp & 0x3f));
    }
}

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A few Unicode names for `\N{...}`; the full database is not worth embedding for kernels.
uint32_t unicode_name(std::string_view name) {
    static const struct { const char* name; uint32_t cp; } kNames[] = {
        {"SPACE", 0x20}, {"NO-BREAK SPACE", 0xa0}, {"EN DASH", 0x2013}, {"EM DASH", 0x2014},
        {"BULLET", 0x2022}, {"HORIZONTAL ELLIPSIS", 0x2026}, {"DEGREE SIGN", 0xb0},
        {"MULTIPLICATION SIGN", 0xd7}, {"MICRO SIGN", 0xb5}, {"PLUS-MINUS SIGN", 0xb1},
        {"GREEK SMALL LETTER ALPHA", 0x3b1}, {"GREEK SMALL LETTER BETA", 0x3b2},
        {"GREEK SMALL LETTER MU", 0x3bc}, {"GREEK SMALL LETTER PI", 0x3c0},
        {"GREEK SMALL LETTER SIGMA", 0x3c3}, {"GREEK CAPITAL LETTER DELTA", 0x394},
        {"RIGHTWARDS ARROW", 0x2192}, {"CHECK MARK", 0x2713}, {"INFINITY", 0x221e},
        {"LATIN SMALL LETTER E WITH ACUTE", 0xe9}, {"NULL", 0}, {"LINE FEED", 0x0a},
        {"CHARACTER TABULATION", 0x09}, {"ZERO WIDTH SPACE", 0x200b}};
    std::string upper;
    for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const auto& e : kNames)
        if (upper == e.name) return e.cp;
    return 0xffffffffu;
}

// Decimal text of an integer written in `base` (digits without underscores or prefix).
std::string to_decimal(std::string_view digits, int base) {
    std::vector<uint32_t> limbs{0};  // little-endian, base 1e9
    for (char c : digits) {
        uint64_t carry = static_cast<uint64_t>(hex_value(c));
        for (auto& l : limbs) {
            uint64_t v = static_cast<uint64_t>(l) * base + carry;
            l = static_cast<uint32_t>(v % 1000000000u);
            carry = v / 1000000000u;
        }
        if (carry) limbs.push_back(static_cast<uint32_t>(carry));
    }
    std::string out = std::to_string(limbs.back());
    for (size_t i = limbs.size() - 1; i-- > 0;) {
        std::string part = std::to_string(limbs[i]);
        out += std::string(9 - part.size(), '0') + part;
    }
    return out;
}

double parse_double(std::string_view text) {
    double v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec == std::errc::result_out_of_range) {
        // Overflow reads as inf and underflow as 0, as Python's float() does.
        size_t e = text.find_first_of("eE");
        bool negative_exp = e != std::string_view::npos && e + 1 < text.size() && text[e + 1] == '-';
        return negative_exp ? 0.0 : HUGE_VAL;
    }
    return v;
}

struct StringInfo {
    bool raw = false, bytes = false, fstring = false, unicode = false;
    size_t body_begin = 0, body_end = 0;  // file offsets of the text between the quotes
};

StringInfo string_info(const Token& t) {
    StringInfo si;
    size_t plen = 0;
    while (plen < t.text.size() && t.text[plen] != '"' && t.text[plen] != '\'') {
        char c = static_cast<char>(std::tolower(static_cast<unsigned char>(t.text[plen])));
        si.raw |= c == 'r';
        si.bytes |= c == 'b';
        si.fstring |= c == 'f';
        si.unicode |= c == 'u';
        ++plen;
    }
    char q = t.text[plen];
    bool triple = t.text.size() >= plen + 6 && t.text[plen + 1] == q && t.text[plen + 2] == q;
    size_t qlen = triple ? 3 : 1;
    si.body_begin = t.offset + plen + qlen;
    si.body_end = t.offset + t.text.size() - qlen;
    return si;
}

// End of the expression part of a replacement field: the first `!`, `:` or self-documenting
// `=` outside brackets and nested strings, or the closing `}`.
size_t field_expression_end(std::string_view s, size_t k, size_t close) {
    int nest = 0;
    while (k < close) {
        char c = s[k];
        int plen = (c == '"' || c == '\'' || std::isalpha(static_cast<unsigned char>(c))) ? string_prefix_length(s.substr(0, close), k) : -1;
        if (plen >= 0) {
            bool f = false;
            for (int m = 0; m < plen; ++m) f = f || s[k + m] == 'f' || s[k + m] == 'F';
            size_t e = scan_string_literal(s, k + plen, close, f, 1);
            if (e == std::string_view::npos) return close;
            k = e;
            continue;
        }
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            while (k < close && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_')) ++k;
            continue;
        }
        if (std::strchr("=!<>", c) && k + 1 < close && s[k + 1] == '=') {
            k += 2;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++nest;
        else if (c == ')' || c == ']' || c == '}') --nest;
        else if (nest == 0 && (c == '!' || c == ':' || c == '=')) return k;
        ++k;
    }
    return close;
}

// Merges adjacent string constants and drops empty ones, as CPython does for JoinedStr.
void merge_constants(ExprList& values) {
    ExprList out;
    for (auto& v : values) {
        auto* c = v->as<Constant>();
        if (c) {
            auto* str = std::get_if<std::string>(&c->value);
            if (str && str->empty()) continue;
            if (!out.empty())
                if (auto* prev = out.back()->as<Constant>()) {
                    std::get<std::string>(prev->value) += *str;
                    continue;
                }
        }
        out.push_back(std::move(v));
    }
    values = std::move(out);
}

}  // namespace

SourceLoc Parser::loc_in_token(const Token& t, size_t offset) const {
    SourceLoc loc = t.span.begin;
    const std::string& s = file_->text();
    for (size_t k = t.offset; k < offset && k < s.size(); ++k) {
        if (s[k] == '\n') {
            ++loc.line;
            loc.col = 1;
        } else {
            ++loc.col;
        }
    }
    return loc;
}

ExprPtr Parser::number_literal(const Token& t) {
    auto c = std::make_unique<Constant>();
    c->span = t.span;
    std::string text;
    for (char ch : t.text)
        if (ch != '_') text += ch;
    char last = static_cast<char>(std::tolower(static_cast<unsigned char>(text.back())));
    bool radix = text.size() > 1 && text[0] == '0' && std::strchr("xXoObB", text[1]);
    if (!radix && last == 'j') {
        c->value = ImagValue{parse_double(std::string_view(text).substr(0, text.size() - 1))};
    } else if (!radix && text.find_first_of(".eE") != std::string::npos) {
        c->value = parse_double(text);
    } else {
        int base = 10;
        std::string_view digits = text;
        if (radix) {
            char b = static_cast<char>(std::tolower(static_cast<unsigned char>(text[1])));
            base = b == 'x' ? 16 : b == 'o' ? 8 : 2;
            digits.remove_prefix(2);
        }
        uint64_t v = 0;
        bool overflow = false;
        for (char d : digits) {
            uint64_t digit = static_cast<uint64_t>(hex_value(d));
            if (v > (static_cast<uint64_t>(INT64_MAX) - digit) / base) {
                overflow = true;
                break;
            }
            v = v * base + digit;
        }
        if (overflow) c->value = BigIntValue{to_decimal(digits, base)};
        else c->value = static_cast<int64_t>(v);
    }
    return c;
}

std::string Parser::decode_escapes(const Token& t, std::string_view body, bool bytes, bool raw) {
    std::string out;
    out.reserve(body.size());
    for (size_t k = 0; k < body.size(); ++k) {
        char c = body[k];
        if (c == '\r' && k + 1 < body.size() && body[k + 1] == '\n') continue;  // CRLF reads as LF
        if (bytes && static_cast<unsigned char>(c) >= 0x80)
            fail_syntax("bytes can only contain ASCII literal characters", t.span);
        if (c != '\\' || raw || k + 1 >= body.size()) {
            out += c;
            continue;
        }
        char e = body[++k];
        switch (e) {
            case '\n': break;
            case '\r': if (k + 1 < body.size() && body[k + 1] == '\n') ++k; break;
            case '\\': out += '\\'; break;
            case '\'': out += '\''; break;
            case '"': out += '"'; break;
            case 'a': out += '\a'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'v': out += '\v'; break;
            case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
                uint32_t v = 0;
                int n = 0;
                while (n < 3 && k < body.size() && body[k] >= '0' && body[k] <= '7') v = v * 8 + (body[k++] - '0'), ++n;
                --k;
                if (bytes) out += static_cast<char>(v & 0xff);
                else append_utf8(out, v);
                break;
            }
            case 'x': case 'u': case 'U': {
                if (bytes && e != 'x') {
                    out += '\\';
                    out += e;
                    break;
                }
                int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
                uint32_t v = 0;
                for (int m = 0; m < n; ++m) {
                    int h = k + 1 + m < body.size() ? hex_value(body[k + 1 + m]) : -1;
                    if (h < 0)
                        fail_syntax("truncated `\\" + std::string(1, e) + "` escape in string literal; it needs " +
                                        std::to_string(n) + " hex digits", t.span);
                    v = v * 16 + static_cast<uint32_t>(h);
                }
                k += n;
                if (v > 0x10ffff) fail_syntax("illegal Unicode character in `\\U` escape", t.span);
                if (bytes) out += static_cast<char>(v);
                else append_utf8(out, v);
                break;
            }
            case 'N': {
                if (bytes || k + 1 >= body.size() || body[k + 1] != '{') {
                    if (!bytes) fail_syntax("malformed `\\N` character escape", t.span);
                    out += "\\N";
                    break;
                }
                size_t close = body.find('}', k + 2);
                if (close == std::string_view::npos) fail_syntax("malformed `\\N` character escape", t.span);
                uint32_t cp = unicode_name(body.substr(k + 2, close - k - 2));
                if (cp == 0xffffffffu)
                    fail_syntax("unknown Unicode character name `" + std::string(body.substr(k + 2, close - k - 2)) +
                                    "`; write the character or a `\\u` escape instead", t.span);
                append_utf8(out, cp);
                k = close;
                break;
            }
            default:  // unknown escapes keep their backslash (a warning in CPython)
                out += '\\';
                out += e;
        }
    }
    return out;
}

ExprPtr Parser::string_literals() {
    SourceLoc b = here();
    const std::string& s = file_->text();
    bool any_f = false, first = true, bytes = false, unicode = false;
    std::vector<const Token*> toks;
    while (at(TokenKind::String)) {
        const Token& t = next();
        StringInfo si = string_info(t);
        if (first) bytes = si.bytes, unicode = si.unicode;
        else if (bytes != si.bytes) fail_syntax("cannot mix bytes and nonbytes literals", t.span);
        first = false;
        any_f |= si.fstring;
        toks.push_back(&t);
    }
    if (!any_f) {
        std::string value;
        for (const Token* t : toks) {
            StringInfo si = string_info(*t);
            value += decode_escapes(*t, std::string_view(s).substr(si.body_begin, si.body_end - si.body_begin), bytes, si.raw);
        }
        auto c = std::make_unique<Constant>();
        if (bytes) c->value = BytesValue{std::move(value)};
        else c->value = std::move(value);
        if (unicode) c->str_kind.push_back('u');
        finish(*c, b);
        return c;
    }
    auto j = std::make_unique<JoinedStr>();
    for (const Token* t : toks) {
        StringInfo si = string_info(*t);
        if (si.fstring) {
            fstring_body(*t, si.body_begin, si.body_end, si.raw, j->values, 0);
        } else {
            auto c = std::make_unique<Constant>();
            c->span = t->span;
            c->value = decode_escapes(*t, std::string_view(s).substr(si.body_begin, si.body_end - si.body_begin), false, si.raw);
            j->values.push_back(std::move(c));
        }
    }
    merge_constants(j->values);
    finish(*j, b);
    return j;
}

void Parser::fstring_body(const Token& tok, size_t begin, size_t end, bool raw, ExprList& out, int nesting) {
    if (nesting > 2) fail_syntax("f-string: expressions nested too deeply", tok.span);
    std::string_view s = file_->text();
    size_t start = begin, k = begin;
    auto flush = [&](size_t upto) {
        if (upto <= start) return;
        auto c = std::make_unique<Constant>();
        c->span = tok.span;
        c->value = decode_escapes(tok, s.substr(start, upto - start), false, raw);
        out.push_back(std::move(c));
    };
    while (k < end) {
        char c = s[k];
        if (c == '\\' && !raw) {
            if (k + 2 < end && s[k + 1] == 'N' && s[k + 2] == '{') {
                size_t close = s.find('}', k);
                k = close == std::string_view::npos || close >= end ? end : close + 1;
            } else {
                k += 2;
            }
            continue;
        }
        if (c == '{' || c == '}') {
            if (k + 1 < end && s[k + 1] == c) {  // `{{` and `}}` are literal braces
                flush(k + 1);
                k += 2;
                start = k;
                continue;
            }
            if (c == '}') fail_syntax("f-string: single `}` is not allowed; write `}}` for a literal brace", tok.span);
            flush(k);
            fstring_field(tok, k, end, raw, out, nesting);
            start = k;
            continue;
        }
        ++k;
    }
    flush(end);
}

void Parser::fstring_field(const Token& tok, size_t& k, size_t end, bool raw, ExprList& out, int nesting) {
    std::string_view s = file_->text();
    size_t close = scan_replacement_field(s, k, end, 1);
    if (close == std::string_view::npos || close >= end) fail_syntax("f-string: expecting `}`", tok.span);
    size_t expr_b = k + 1;
    size_t expr_e = field_expression_end(s, expr_b, close);
    if (s.substr(expr_b, expr_e - expr_b).find_first_not_of(" \t\r\n\f") == std::string_view::npos)
        fail_syntax("f-string: valid expression required before `" + std::string(1, s[expr_e]) + "`", tok.span);
    size_t p = expr_e;
    bool selfdoc = false;
    if (s[p] == '=') {
        selfdoc = true;
        ++p;
        while (p < close && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r')) ++p;
        auto c = std::make_unique<Constant>();
        c->span = tok.span;
        c->value = std::string(s.substr(expr_b, p - expr_b));
        out.push_back(std::move(c));
    }
    auto fv = std::make_unique<FormattedValue>();
    fv->span = tok.span;
    if (s[p] == '!') {
        char conv = p + 1 < close ? s[p + 1] : '}';
        if (conv != 's' && conv != 'r' && conv != 'a')
            fail_syntax("f-string: invalid conversion character; expected `s`, `r` or `a`", tok.span);
        fv->conversion = conv;
        p += 2;
    }
    if (p < close && s[p] == ':') {
        auto spec = std::make_unique<JoinedStr>();
        spec->span = tok.span;
        fstring_body(tok, p + 1, close, raw, spec->values, nesting + 1);
        merge_constants(spec->values);
        fv->format_spec = std::move(spec);
        p = close;
    }
    if (p != close) fail_syntax("f-string: expecting `}`", tok.span);
    if (selfdoc && fv->conversion < 0 && !fv->format_spec) fv->conversion = 'r';

    // Parse the expression from its own tokens, then resume the enclosing token stream.
    DiagnosticEngine local(file_);
    std::vector<Token> sub;
    if (!tokenize_range(*file_, expr_b, expr_e, loc_in_token(tok, expr_b), local, sub)) {
        if (!speculating_)
            for (const auto& d : local.diagnostics()) diags_.add(d);
        throw ParseAbort{};
    }
    struct Swap {
        Parser& p;
        std::vector<Token>& other;
        size_t saved_pos;
        Swap(Parser& parser, std::vector<Token>& o) : p(parser), other(o), saved_pos(parser.pos_) {
            std::swap(p.toks_, other);
            p.pos_ = 0;
        }
        ~Swap() {
            std::swap(p.toks_, other);
            p.pos_ = saved_pos;
        }
    } swap(*this, sub);
    DepthGuard g(*this);
    fv->value = yield_or_star_expressions();
    if (!at(TokenKind::EndMarker)) fail_expected("`}` in f-string replacement field");
    k = close + 1;
    out.push_back(std::move(fv));
}

}  // namespace tp::frontend
