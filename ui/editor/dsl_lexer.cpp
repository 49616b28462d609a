// DslLexer: keyword set 2 (QsciLexerPython's "highlighted identifiers") carries the builtins.
#include "editor/dsl_lexer.h"

#include "editor/builtins.h"

namespace tpui {

DslLexer::DslLexer(QObject* parent) : QsciLexerPython(parent) {
    builtins_ = builtin_keyword_list().toLatin1() + " T tilelang jit autotune";
    setFoldComments(true);
    setFoldQuotes(true);
    setIndentationWarning(QsciLexerPython::Inconsistent);
}

const char* DslLexer::keywords(int set) const {
    if (set == 2) return builtins_.constData();
    return QsciLexerPython::keywords(set);
}

void DslLexer::apply_theme(const Theme& t, const QFont& font) {
    setDefaultFont(font);
    setFont(font);
    setDefaultPaper(t.base);
    setPaper(t.base);
    setDefaultColor(t.text);
    setColor(t.text);
    QFont italic = font;
    italic.setItalic(true);
    QFont bold = font;
    bold.setBold(true);
    setColor(t.comment, Comment);
    setFont(italic, Comment);
    setColor(t.comment, CommentBlock);
    setFont(italic, CommentBlock);
    setColor(t.number, Number);
    for (int s : {DoubleQuotedString, SingleQuotedString, TripleSingleQuotedString, TripleDoubleQuotedString,
                  DoubleQuotedFString, SingleQuotedFString, TripleSingleQuotedFString, TripleDoubleQuotedFString,
                  UnclosedString})
        setColor(t.string, s);
    setColor(t.keyword, Keyword);
    setFont(bold, Keyword);
    setColor(t.builtin, HighlightedIdentifier);
    setColor(t.decorator, Decorator);
    setColor(t.type, ClassName);
    setColor(t.decorator, FunctionMethodName);
    setColor(t.muted, Operator);
    setColor(t.text, Identifier);
}

}  // namespace tpui
