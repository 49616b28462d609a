// Tokenizer: indentation (nested blocks, multi-level dedent, inconsistent dedent, tabs),
// brackets across lines, comments at odd indents, continuations, empty input, missing final
// newline, CRLF, BOM, numbers, strings and f-string extents, and lexical error positions.
#include <gtest/gtest.h>

#include "frontend/parser.h"

using namespace tp;
using namespace tp::frontend;

namespace {

struct Lexed {
    std::vector<Token> toks;
    std::vector<Diagnostic> diags;
};

Lexed lex(const std::string& text) {
    auto file = SourceFile::from_string("t.py", text);
    DiagnosticEngine diags(file);
    Lexed r;
    r.toks = tokenize(*file, diags);
    r.diags = diags.diagnostics();
    return r;
}

// Compact form: NAME:x OP:( NUMBER:1 NEWLINE INDENT DEDENT END.
std::string kinds(const std::string& text) {
    std::string out;
    for (const Token& t : lex(text).toks) {
        if (!out.empty()) out += ' ';
        switch (t.kind) {
            case TokenKind::Newline: out += "NL"; break;
            case TokenKind::Indent: out += "IN"; break;
            case TokenKind::Dedent: out += "DE"; break;
            case TokenKind::EndMarker: out += "END"; break;
            default: out += t.text;
        }
    }
    return out;
}

DiagKind first_error(const std::string& text, SourceLoc* at = nullptr) {
    Lexed r = lex(text);
    EXPECT_FALSE(r.diags.empty()) << text;
    if (r.diags.empty()) return DiagKind::Count_;
    if (at) *at = r.diags[0].span.begin;
    return r.diags[0].kind;
}

}  // namespace

TEST(Tokenizer, EmptyAndBlankInputs) {
    EXPECT_EQ(kinds(""), "END");
    EXPECT_EQ(kinds("\n\n   \n# only a comment\n"), "END");
    EXPECT_EQ(kinds("x"), "x NL END");  // no trailing newline still ends the line
}

TEST(Tokenizer, NestedBlocksAndMultiLevelDedent) {
    EXPECT_EQ(kinds("if a:\n    if b:\n        c\nd\n"), "if a : NL IN if b : NL IN c NL DE DE d NL END");
    EXPECT_EQ(kinds("if a:\n  b\n  if c:\n      d\n  e\n"), "if a : NL IN b NL if c : NL IN d NL DE e NL DE END");
    // Dedents at end of file without a newline.
    EXPECT_EQ(kinds("if a:\n    if b:\n        c"), "if a : NL IN if b : NL IN c NL DE DE END");
}

TEST(Tokenizer, CommentsAndBlankLinesIgnoreIndentation) {
    EXPECT_EQ(kinds("if a:\n        # deep\n    b\n  # shallow\n\n    c\n"), "if a : NL IN b NL c NL DE END");
}

TEST(Tokenizer, BracketsSuppressNewlinesAndIndentation) {
    EXPECT_EQ(kinds("x = (1,\n  2,\n        3)\ny\n"), "x = ( 1 , 2 , 3 ) NL y NL END");
    EXPECT_EQ(kinds("f([\n{\n}])\n"), "f ( [ { } ] ) NL END");
}

TEST(Tokenizer, LineContinuation) {
    EXPECT_EQ(kinds("x = 1 + \\\n    2\n"), "x = 1 + 2 NL END");
    EXPECT_EQ(kinds("x = 1 + \\\r\n    2\r\n"), "x = 1 + 2 NL END");
}

TEST(Tokenizer, CrlfAndBom) {
    EXPECT_EQ(kinds("if a:\r\n    b\r\n"), "if a : NL IN b NL DE END");
    Lexed r = lex("\xEF\xBB\xBFx = 1\n");
    ASSERT_TRUE(r.diags.empty());
    EXPECT_EQ(r.toks[0].text, "x");
    EXPECT_EQ(r.toks[0].span.begin.col, 1u);
}

TEST(Tokenizer, TabsCountToNextMultipleOfEight) {
    EXPECT_EQ(kinds("if a:\n\tb\n\tc\n"), "if a : NL IN b NL c NL DE END");
    EXPECT_EQ(kinds("if a:\n\tif b:\n\t\tc\n"), "if a : NL IN if b : NL IN c NL DE DE END");
    // Eight spaces then a tab-indented line: equal at tab size 8, not at tab size 1.
    EXPECT_EQ(first_error("if a:\n        b\n\tc\n"), DiagKind::MixedTabsSpaces);
}

TEST(Tokenizer, IndentationErrors) {
    SourceLoc at;
    EXPECT_EQ(first_error("if a:\n        b\n    c\n", &at), DiagKind::InconsistentDedent);
    EXPECT_EQ(at.line, 3u);
}

TEST(Tokenizer, Numbers) {
    for (const char* ok : {"0", "00", "0_0", "123", "1_000", "0x_ff", "0XDEAD", "0o17", "0b1010", "1.", ".5",
                           "1.5e10", "1E-5", "1e+5", "3j", "1.5J", "1_0.0_1e1_0", "0.0", "09.5", "09j"}) {
        Lexed r = lex(std::string(ok) + "\n");
        ASSERT_TRUE(r.diags.empty()) << ok;
        EXPECT_EQ(r.toks[0].kind, TokenKind::Number) << ok;
        EXPECT_EQ(r.toks[0].text, ok);
    }
    for (const char* bad : {"09", "1__0", "1_", "0b2", "0o8", "1e", "0x", "12abc", "1.5x"})
        EXPECT_EQ(first_error(std::string(bad) + "\n"), DiagKind::InvalidNumber) << bad;
    // A number may run into a keyword (`1if x else 2` is valid Python).
    EXPECT_EQ(kinds("1if x else 2\n"), "1 if x else 2 NL END");
}

TEST(Tokenizer, OperatorsLongestMatch) {
    EXPECT_EQ(kinds("a **= b //= c >>= d <<= e ... -> := != ==\n"),
              "a **= b //= c >>= d <<= e ... -> := != == NL END");
    EXPECT_EQ(kinds("a<b>=c\n"), "a < b >= c NL END");
}

TEST(Tokenizer, StringPrefixesAndTripleQuotes) {
    for (const char* s : {"'a'", "\"a\"", "r'\\d'", "b'x'", "Rb'x'", "bR'x'", "u'x'", "f'{x}'", "rf'{x}'",
                          "FR'{x}'", "'''a\nb'''", "\"\"\"a\"b\"\"\"", "'a\\'b'", "r'\\''"}) {
        Lexed r = lex(std::string(s) + "\n");
        ASSERT_TRUE(r.diags.empty()) << s;
        EXPECT_EQ(r.toks[0].kind, TokenKind::String) << s;
        EXPECT_EQ(r.toks[0].text, s);
    }
    // `xr'a'` is the name `xr` followed by a string, not a prefixed string.
    EXPECT_EQ(kinds("xr'a'\n"), "xr 'a' NL END");
    Lexed r = lex("x = '''a\nb\nc''' + y\n");
    EXPECT_EQ(r.toks[2].span.begin.line, 1u);
    EXPECT_EQ(r.toks[2].span.end.line, 3u);
    EXPECT_EQ(r.toks[4].span.begin.line, 3u);  // `y` after the multi-line string
}

TEST(Tokenizer, FStringsNestQuotesAndFields) {
    for (const char* s : {"f\"{a['k']}\"", "f\"{a[\"k\"]}\"", "f'{x:{w}.{p}}'", "f'{f'{x}'}'", "f'{{}}'",
                          "f'{x!r:>{w}}'", "f'''{\n x\n}'''", "f'{\"}\"}'"}) {
        Lexed r = lex(std::string(s) + "\n");
        ASSERT_TRUE(r.diags.empty()) << s;
        ASSERT_EQ(r.toks.size(), 3u) << s;
        EXPECT_EQ(r.toks[0].text, s);
    }
}

TEST(Tokenizer, LexicalErrorsAndPositions) {
    SourceLoc at;
    EXPECT_EQ(first_error("x = $\n", &at), DiagKind::InvalidCharacter);
    EXPECT_EQ(at, (SourceLoc{1, 5}));
    EXPECT_EQ(first_error("x = \xE2\x80\x9Chi\xE2\x80\x9D\n", &at), DiagKind::InvalidCharacter);
    EXPECT_EQ(first_error("x = 'abc\ny = 1\n", &at), DiagKind::UnterminatedString);
    EXPECT_EQ(at, (SourceLoc{1, 5}));
    EXPECT_EQ(first_error("s = '''abc\n\n"), DiagKind::UnterminatedString);
    EXPECT_EQ(first_error("s = f'{x'\n"), DiagKind::UnterminatedString);
    EXPECT_EQ(first_error("x = (1, 2]\n", &at), DiagKind::UnmatchedBracket);
    EXPECT_EQ(at, (SourceLoc{1, 10}));
    EXPECT_EQ(first_error("x = [1,\n (2\n", &at), DiagKind::UnmatchedBracket);
    EXPECT_EQ(at, (SourceLoc{2, 2}));  // the innermost bracket left open
    EXPECT_EQ(first_error(")\n"), DiagKind::UnmatchedBracket);
    EXPECT_EQ(first_error("x = 1 \\ 2\n"), DiagKind::InvalidSyntax);
    EXPECT_EQ(first_error(std::string("x = 1\0\n", 7)), DiagKind::InvalidCharacter);
}

TEST(Tokenizer, UnicodeIdentifiers) {
    EXPECT_EQ(kinds("größe = π\n"), "größe = π NL END");
}

TEST(Tokenizer, NestingLimits) {
    EXPECT_EQ(first_error(std::string(300, '(') + "\n"), DiagKind::InvalidSyntax);
    std::string deep;
    for (int i = 0; i < 120; ++i) deep += std::string(i, ' ') + "if x:\n";
    deep += std::string(120, ' ') + "pass\n";
    EXPECT_EQ(first_error(deep), DiagKind::InvalidSyntax);
}

TEST(Tokenizer, SpansAreOnePastTheEnd) {
    Lexed r = lex("abc = 12\n");
    EXPECT_EQ(r.toks[0].span.begin, (SourceLoc{1, 1}));
    EXPECT_EQ(r.toks[0].span.end, (SourceLoc{1, 4}));
    EXPECT_EQ(r.toks[2].span.begin, (SourceLoc{1, 7}));
    EXPECT_EQ(r.toks[2].span.end, (SourceLoc{1, 9}));
}
