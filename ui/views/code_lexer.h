// Lexer for the read-only generated-code views (CUDA C++, PTX, SASS, Tile IR): comments,
// strings, numbers, registers, directives and keywords, with the four token classes (Tensor
// Core, async copy, barriers, matrix loads) drawn in their own colours on top.
#pragma once

#include <Qsci/qscilexercustom.h>

#include "theme.h"
#include "views/token_classes.h"

namespace tpui {

class CodeLexer : public QsciLexerCustom {
    Q_OBJECT
public:
    enum Style { Default, Comment, Directive, Register, Number, Keyword, String, Opcode,
                 ClassTensorCore, ClassAsyncCopy, ClassBarrier, ClassMatrixLoad, StyleCount };

    CodeLexer(CodeKind kind, QObject* parent = nullptr);
    const char* language() const override { return "TilePlayCode"; }
    QString description(int style) const override;
    void styleText(int start, int end) override;
    void apply_theme(const Theme& t, const QFont& font);
    CodeKind kind() const { return kind_; }

    // Style of every byte of one line (exposed for tests).
    static std::vector<int> style_line(std::string_view line, CodeKind kind);

private:
    CodeKind kind_;
};

}  // namespace tpui
