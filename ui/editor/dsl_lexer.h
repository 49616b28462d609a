// The DSL's lexer: Python's (strings, comments, numbers, folding by indentation) with the T.*
// builtins highlighted as their own class and colours from the active theme.
#pragma once

#include <Qsci/qscilexerpython.h>

#include "theme.h"

namespace tpui {

class DslLexer : public QsciLexerPython {
    Q_OBJECT
public:
    explicit DslLexer(QObject* parent = nullptr);
    const char* keywords(int set) const override;
    void apply_theme(const Theme& t, const QFont& font);

private:
    QByteArray builtins_;
};

}  // namespace tpui
