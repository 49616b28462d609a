// OutputPanel: the log is re-rendered whole on each change and on a theme switch, so the
// header and failure colours always follow the current theme.
#include "panels/output/output_panel.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTextBlock>
#include <QTextCursor>
#include <QVBoxLayout>

#include "models/output_log.h"
#include "theme.h"

namespace tpui {

OutputPanel::OutputPanel(OutputLog* log, QWidget* parent) : QWidget(parent), log_(log) {
    summary_ = new QLabel;
    summary_->setObjectName("output_summary");
    clear_ = new QPushButton(tr("Clear"));
    clear_->setObjectName("output_clear");
    clear_->setToolTip(tr("Clear the printed output"));
    clear_->setFocusPolicy(Qt::TabFocus);  // a click must not pull focus from the editor
    view_ = new QPlainTextEdit;
    view_->setObjectName("output_text");
    view_->setReadOnly(true);
    view_->setLineWrapMode(QPlainTextEdit::NoWrap);  // one printed element per line, as printed
    view_->setUndoRedoEnabled(false);
    empty_ = new QLabel(tr("T.print output of the last run appears here"));
    empty_->setObjectName("output_empty");
    empty_->setAlignment(Qt::AlignCenter);
    empty_->setEnabled(false);  // drawn in the palette's dimmed text colour, like Problems'
    stack_ = new QStackedWidget;
    stack_->addWidget(view_);
    stack_->addWidget(empty_);

    auto* row = new QHBoxLayout;
    row->addWidget(summary_, 1);
    row->addWidget(clear_);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    l->addLayout(row);
    l->addWidget(stack_, 1);

    connect(clear_, &QPushButton::clicked, log_, &OutputLog::clear);
    connect(log_, &OutputLog::changed, this, &OutputPanel::render);
    render();
}

void OutputPanel::apply_theme(const Theme& t, int font_size) {
    theme_ = &t;
    QFont font(QStringLiteral("DejaVu Sans Mono"), font_size);
    font.setStyleHint(QFont::Monospace);
    view_->setFont(font);
    render();
}

void OutputPanel::render() {
    bool any = !log_->empty() || log_->dropped_sections() > 0;
    stack_->setCurrentWidget(any ? static_cast<QWidget*>(view_) : empty_);
    clear_->setEnabled(any);
    int lines = log_->line_count();
    summary_->setText(!any ? QString()
                           : lines == 1 ? tr("1 line printed by the last run")
                           : lines ? tr("%1 lines printed by the last run").arg(lines)
                                   : tr("the last run printed nothing"));
    view_->clear();
    if (!any) return;

    QTextCharFormat plain, header, failed;
    if (theme_) {
        header.setForeground(theme_->builtin);
        failed.setForeground(theme_->error);
    }
    header.setFontWeight(QFont::Bold);
    QTextCursor c(view_->document());
    c.beginEditBlock();
    bool first = true;
    // Each insert ends without a newline so the document ends on the last line, not after it.
    auto put = [&](const QString& text, const QTextCharFormat& f) {
        if (!first) c.insertBlock();
        first = false;
        c.insertText(text, f);
    };
    for (const OutputLog::Section& s : log_->sections()) {
        put(s.header, header);
        // Runs of ordinary lines go in as one insert (a 256 KB log has thousands of lines);
        // a failed assertion's line stands out in the error colour.
        QStringList lines = s.text.split('\n');
        if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
        QStringList run;
        auto flush = [&] {
            if (!run.isEmpty()) put(run.join('\n'), plain);
            run.clear();
        };
        for (const QString& line : lines) {
            if (!OutputLog::is_assert_line(line)) {
                run << line;
                continue;
            }
            flush();
            put(line, failed);
        }
        flush();
        if (!s.error.isEmpty()) put(tr("the run failed: %1").arg(s.error), failed);
    }
    if (log_->dropped_sections()) put(log_->dropped_note(), failed);
    c.endEditBlock();
    view_->verticalScrollBar()->setValue(0);  // the first lines, and the header, in view
}

}  // namespace tpui
