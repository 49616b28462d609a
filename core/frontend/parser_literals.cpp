// Literal values: numbers (ints beyond int64 kept as decimal text, floats and imaginaries as
// Python reads them) and the escape sequences of string and bytes literals. Splitting string
// tokens, implicit concatenation and f-strings are in parser_strings.cpp.
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

}  // namespace

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

}  // namespace tp::frontend
