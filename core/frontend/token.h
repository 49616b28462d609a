// Tokens of the Python 3.12 lexical grammar as the tokenizer hands them to the parser. String
// literals (bytes and f-strings included) stay one token holding their raw text with prefix
// and quotes; the parser decodes them and splits f-strings into their replacement fields.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tileplay/source.h"

namespace tp {
class DiagnosticEngine;
}

namespace tp::frontend {

enum class TokenKind { Name, Number, String, Op, Newline, Indent, Dedent, EndMarker };

const char* token_kind_name(TokenKind k);

struct Token {
    TokenKind kind = TokenKind::EndMarker;
    std::string text;     // raw source text; empty for NEWLINE at EOF, INDENT, DEDENT, ENDMARKER
    Span span;            // begin = first character, end = one past the last
    uint32_t offset = 0;  // byte offset of span.begin in the file text
    bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
    bool is_op(std::string_view t) const { return kind == TokenKind::Op && text == t; }
    bool is_name(std::string_view t) const { return kind == TokenKind::Name && text == t; }
};

// How a token reads in a message: "`)`", "newline", "end of file", "indent", "string literal".
std::string describe_token(const Token& t);

// True for Python's hard keywords (`if`, `None`, `lambda`, ...); soft keywords are names.
bool is_keyword(std::string_view word);

// Tokenizes [begin, end) of the file text as the inside of a bracket: no NEWLINE, INDENT or
// DEDENT, ends with ENDMARKER. Used for the `{...}` fields of f-strings. `loc` is the
// location of `begin`. Returns false (with a diagnostic) on a lexical error.
bool tokenize_range(const SourceFile& file, size_t begin, size_t end, SourceLoc loc,
                    DiagnosticEngine& diags, std::vector<Token>& out);

// Finds the end of the string literal whose opening quote is at `quote` (one past the closing
// quote), following PEP 701 nesting inside f-string replacement fields. Returns npos when the
// literal is not terminated before `limit`.
size_t scan_string_literal(std::string_view text, size_t quote, size_t limit, bool fstring, int depth = 0);

// Scans one f-string replacement field whose `{` is at `open`; returns the offset of its
// closing `}` or npos. The nested-field depth guards against pathological inputs.
size_t scan_replacement_field(std::string_view text, size_t open, size_t limit, int depth);

// Length of a string prefix (`rb`, `f`, ...) when text[pos...] starts a string literal, else -1.
int string_prefix_length(std::string_view text, size_t pos);

}  // namespace tp::frontend
