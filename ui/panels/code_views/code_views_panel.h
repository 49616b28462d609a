// The generated-code area: two panes side by side (CUDA C++ and Tile IR on the left, PTX and
// SASS on the right), each view headed by its token-class counts; the IR view shows the IR
// after any pass. Caret moves in any view (or the editor) highlight the linked lines in all.
#pragma once

#include <QWidget>
#include <memory>

#include "tileplay/compiler.h"
#include "views/line_links.h"

class QComboBox;
class QLabel;
class QTabWidget;

class QSplitter;
class QResizeEvent;

namespace tpui {

class CodeView;
struct Theme;

class CodeViewsPanel : public QWidget {
    Q_OBJECT
public:
    explicit CodeViewsPanel(QWidget* parent = nullptr);

    void set_result(std::shared_ptr<const tp::CompileResult> r);
    // Highlights lines linked to DSL line `dsl` in every view except `except`.
    void highlight_dsl_line(int dsl, LinkedView except);
    void apply_theme(const Theme& t, int font_size);
    const LineLinks& links() const { return links_; }
    // The last result's SASS, empty when there was none (no cubin, no nvdisasm).
    const QString& sass_text() const { return sass_text_; }
    CodeView* view(LinkedView v) const;
    CodeView* ir_view() const { return ir_; }
    QString counts_text(LinkedView v) const;

Q_SIGNALS:
    void dsl_line_selected(int dsl);  // the caret moved in a generated view

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void show_pass(int index);
    QWidget* wrap(CodeView* v, QLabel*& header, QWidget* extra = nullptr);
    void update_headers();

    std::shared_ptr<const tp::CompileResult> result_;
    LineLinks links_;
    QString sass_text_;
    CodeView* cuda_;
    CodeView* ptx_;
    CodeView* sass_;
    CodeView* ir_;
    QLabel* cuda_header_;
    QLabel* ptx_header_;
    QLabel* sass_header_;
    QLabel* ir_header_;
    QComboBox* pass_;
    QTabWidget* left_;
    QSplitter* split_ = nullptr;
    static constexpr int kSideBySideWidth = 760;  // narrower: CUDA above PTX
    QTabWidget* right_;
    const Theme* theme_ = nullptr;
};

}  // namespace tpui
