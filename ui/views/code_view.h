// A read-only view of generated code (CUDA, PTX, SASS or IR): the code lexer, link colours on
// every line that came from a DSL line, a caret-linked highlight, and hover cards that explain
// the instruction under the mouse.
#pragma once

#include <Qsci/qsciscintilla.h>

#include "tileplay/compiler.h"
#include "theme.h"
#include "views/token_classes.h"

namespace tpui {

class CodeLexer;

// 0-based line where the kernel starts in PTX (`.entry`) or SASS (`Function :`); 0 otherwise.
int entry_line(const QString& text, CodeKind kind);

class CodeView : public QsciScintilla {
    Q_OBJECT
public:
    CodeView(CodeKind kind, QWidget* parent = nullptr);

    // Shows `text`; `map` gives each line's DSL line (empty map: no link colours).
    // Shows `text`; the first text of a PTX/SASS view opens at the kernel's entry line.
    void set_code(const QString& text, const tp::LineMap& map = {});
    void set_linked_lines(const std::vector<int>& lines);  // 1-based
    void apply_theme(const Theme& t, int font_size);
    CodeKind kind() const { return kind_; }
    const ClassCounts& counts() const { return counts_; }

Q_SIGNALS:
    void caret_line_changed(int line);  // 1-based, only for user moves

private:
    void on_dwell(int position, int x, int y);

    CodeKind kind_;
    CodeLexer* lexer_;
    ClassCounts counts_{};
    bool programmatic_ = false;
};

}  // namespace tpui
