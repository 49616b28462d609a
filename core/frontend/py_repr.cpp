// Python's repr() of str, bytes, float and complex values: ast::dump must print constants
// exactly as CPython does, and diagnostics quote literals the same way.
#include <charconv>
#include <cmath>

#include "frontend/parser_common.h"

namespace tp::frontend {

namespace {

// Code points Python's str.isprintable() rejects, in the ranges that occur in practice.
bool unicode_printable(uint32_t cp) {
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0xa0) || cp == 0xad) return false;
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202f)) return false;
    if ((cp >= 0x205f && cp <= 0x206f) || cp == 0x3000 || cp == 0xfeff || (cp >= 0xfff9 && cp <= 0xfffb)) return false;
    if ((cp >= 0x600 && cp <= 0x605) || cp == 0x61c || cp == 0x6dd || cp == 0x70f || cp == 0x180e) return false;
    if ((cp >= 0xd800 && cp <= 0xf8ff) || cp >= 0xf0000 || (cp >= 0xe0000 && cp <= 0xe0fff)) return false;
    if (cp == 0xfffe || cp == 0xffff) return false;
    return true;
}

std::string hex_escape(const char* prefix, uint32_t v, int width) {
    static const char kHex[] = "0123456789abcdef";
    std::string s = prefix;
    for (int i = width - 1; i >= 0; --i) s += kHex[(v >> (4 * i)) & 0xf];
    return s;
}

// Shortest round-trip digits and decimal exponent of a finite positive double.
void shortest_digits(double v, std::string& digits, int& exp10) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    std::string s(buf, r.ptr);
    size_t e = s.find('e');
    exp10 = std::stoi(s.substr(e + 1));
    digits.clear();
    for (size_t i = 0; i < e; ++i)
        if (s[i] != '.') digits += s[i];
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
}

std::string float_text(double v, bool add_dot_zero) {
    if (std::isnan(v)) return "nan";
    std::string sign = std::signbit(v) ? "-" : "";
    if (std::isinf(v)) return sign + "inf";
    v = std::fabs(v);
    if (v == 0) return sign + (add_dot_zero ? "0.0" : "0");
    std::string digits;
    int exp = 0;
    shortest_digits(v, digits, exp);
    if (exp >= -4 && exp < 16) {
        std::string s;
        if (exp >= 0) {
            std::string ip = digits.substr(0, std::min<size_t>(digits.size(), exp + 1));
            ip += std::string(exp + 1 - ip.size(), '0');
            std::string fp = digits.size() > static_cast<size_t>(exp + 1) ? digits.substr(exp + 1) : "";
            s = ip + (fp.empty() ? (add_dot_zero ? ".0" : "") : "." + fp);
        } else {
            s = "0." + std::string(-exp - 1, '0') + digits;
        }
        return sign + s;
    }
    std::string m = digits.substr(0, 1);
    if (digits.size() > 1) m += "." + digits.substr(1);
    std::string es = std::to_string(std::abs(exp));
    if (es.size() < 2) es = "0" + es;
    return sign + m + "e" + (exp < 0 ? "-" : "+") + es;
}

}  // namespace

std::string py_repr_float(double v) { return float_text(v, true); }
std::string py_repr_imag(double v) { return float_text(v, false) + "j"; }

std::string py_repr_str(std::string_view s) {
    bool has_single = s.find('\'') != std::string_view::npos, has_double = s.find('"') != std::string_view::npos;
    char q = has_single && !has_double ? '"' : '\'';
    std::string out(1, q);
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if (c == '\\') out += "\\\\";
            else if (c == static_cast<unsigned char>(q)) out.append(1, '\\').append(1, q);
            else if (c == '\t') out += "\\t";
            else if (c == '\n') out += "\\n";
            else if (c == '\r') out += "\\r";
            else if (c < 0x20 || c == 0x7f) out += hex_escape("\\x", c, 2);
            else out += static_cast<char>(c);
            ++i;
            continue;
        }
        int n = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
        if (i + n > s.size()) n = 1;
        uint32_t cp = n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : n == 4 ? (c & 0x07) : c;
        for (int k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3f);
        if (unicode_printable(cp)) out.append(s.substr(i, n));
        else if (cp < 0x100) out += hex_escape("\\x", cp, 2);
        else if (cp < 0x10000) out += hex_escape("\\u", cp, 4);
        else out += hex_escape("\\U", cp, 8);
        i += n;
    }
    out += q;
    return out;
}

std::string py_repr_bytes(std::string_view s) {
    bool has_single = s.find('\'') != std::string_view::npos, has_double = s.find('"') != std::string_view::npos;
    char q = has_single && !has_double ? '"' : '\'';
    std::string out = "b";
    out += q;
    for (char ch : s) {
        unsigned char c = static_cast<unsigned char>(ch);
        if (c == '\\') out += "\\\\";
        else if (c == static_cast<unsigned char>(q)) out.append(1, '\\').append(1, q);
        else if (c == '\t') out += "\\t";
        else if (c == '\n') out += "\\n";
        else if (c == '\r') out += "\\r";
        else if (c < 0x20 || c >= 0x7f) out += hex_escape("\\x", c, 2);
        else out += static_cast<char>(c);
    }
    out += q;
    return out;
}

}  // namespace tp::frontend
