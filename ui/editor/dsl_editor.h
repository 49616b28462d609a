// The DSL editor: QScintilla with the DSL lexer, line numbers, folding, diagnostics as
// squiggles + margin marks + hover tooltips, bank-conflict notes in a text margin, T.* completion with call tips, link colours for
// lines that generated code, and a caret-linked highlight driven by the code views.
#pragma once

#include <Qsci/qsciscintilla.h>
#include <vector>

#include "models/layout_grid_model.h"
#include "models/problems_model.h"
#include "theme.h"

class QsciAPIs;

namespace tpui {

class DslLexer;

class DslEditor : public QsciScintilla {
    Q_OBJECT
public:
    explicit DslEditor(QWidget* parent = nullptr);
    ~DslEditor() override;

    void apply_theme(const Theme& t, int font_size);
    void set_problems(const std::vector<Problem>& problems);
    // Tints every DSL line that some generated line maps to with its link colour.
    void set_link_lines(const std::vector<int>& dsl_lines);
    void set_linked_lines(const std::vector<int>& lines);  // 1-based; empty clears
    // Bank-conflict degrees of the Layout dock's buffer in a text margin ("32x" in red, "ok"),
    // with the accesses in the line's hover; an empty list hides the margin.
    void set_margin_notes(const std::vector<LayoutMarginNote>& notes);
    const std::vector<LayoutMarginNote>& margin_notes() const { return notes_; }
    void go_to(int line, int col = 1);
    void toggle_comment();
    int caret_line() const;  // 1-based
    // Pixels the editor needs to show `columns` characters of code beside its margins.
    int width_for_columns(int columns);
    const std::vector<Problem>& problems() const { return problems_; }

Q_SIGNALS:
    void caret_line_changed(int line);  // 1-based

protected:
    // Scintilla places the completion list and call tips on the screen under the caret; with
    // the caret on no screen (the window partly dragged off the screens, or larger than them)
    // QScintilla dereferences a null QScreen and the app crashes. Keys typed there open no popup.
    void keyPressEvent(QKeyEvent* e) override;

private:
    void on_dwell(int position, int x, int y);

    DslLexer* lexer_ = nullptr;
    QsciAPIs* apis_ = nullptr;
    std::vector<Problem> problems_;
    std::vector<int> link_lines_;
    std::vector<LayoutMarginNote> notes_;
    const Theme* theme_ = nullptr;
    int last_caret_line_ = 0;
};

}  // namespace tpui
