// String literals: prefixes and quotes, implicit concatenation, and f-strings split into
// JoinedStr/FormattedValue with the replacement-field expressions parsed from their own
// positions in the file (PEP 701). Escape decoding and number literals are in
// parser_literals.cpp.
#include <cstring>

#include "frontend/parser_common.h"

namespace tp::frontend {

using namespace ast;

namespace {

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
    if (pin_)
        for (auto& t : sub) t.span = *pin_;
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
