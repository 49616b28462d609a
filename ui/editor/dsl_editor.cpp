// DslEditor: margins are 0 = line numbers, 1 = diagnostic and link marks, 2 = folding, 3 = the
// Layout dock's bank-conflict notes (text, hidden when there are none).
#include "editor/dsl_editor.h"

#include <algorithm>
#include <Qsci/qsciapis.h>
#include <Qsci/qscistyle.h>
#include <QGuiApplication>
#include <QScreen>
#include <QRegularExpression>
#include <QToolTip>

#include "editor/builtins.h"
#include "editor/dsl_lexer.h"
#include "editor/margin_marks.h"

namespace tpui {

namespace {
constexpr int kNotesMargin = 3;  // the Layout dock's bank-conflict notes
}

DslEditor::~DslEditor() {
    // QsciAPIs prepares the completion list on a thread; deleting it before that ends waits 500 ms,
    // then terminates the thread and Qt aborts the process ("QThread: Destroyed while thread is
    // still running"): an editor closed right after it opened, on a busy machine. An unprepared
    // list is left to finish; it goes with its lexer then (or with the process).
    if (apis_ && !apis_->isPrepared()) {
        setLexer(nullptr);
        lexer_->setParent(nullptr);
        connect(apis_, &QsciAPIs::apiPreparationFinished, lexer_, &QObject::deleteLater);
    }
}

void DslEditor::keyPressEvent(QKeyEvent* e) {
    const long pos = SendScintilla(SCI_GETCURRENTPOS);
    const QPoint caret(int(SendScintilla(SCI_POINTXFROMPOSITION, 0UL, pos)), int(SendScintilla(SCI_POINTYFROMPOSITION, 0UL, pos)));
    const int line_height = int(SendScintilla(SCI_TEXTHEIGHT, 0UL));
    auto on_screen = [this](QPoint p) { return QGuiApplication::screenAt(viewport()->mapToGlobal(p)) != nullptr; };
    if (on_screen(caret) && on_screen(caret + QPoint(0, line_height))) {
        QsciScintilla::keyPressEvent(e);
        return;
    }
    const AutoCompletionSource source = autoCompletionSource();
    const CallTipsStyle tips = callTipsStyle();
    setAutoCompletionSource(AcsNone);
    setCallTipsStyle(CallTipsNone);
    QsciScintilla::keyPressEvent(e);
    setAutoCompletionSource(source);
    setCallTipsStyle(tips);
}

DslEditor::DslEditor(QWidget* parent) : QsciScintilla(parent) {
    setUtf8(true);
    lexer_ = new DslLexer(this);
    setLexer(lexer_);
    apis_ = new QsciAPIs(lexer_);
    for (const auto& b : dsl_builtins())
        apis_->add(QStringLiteral("T.%1%2 %3").arg(QLatin1String(b.name), QLatin1String(b.signature), QLatin1String(b.doc)));
    for (const char* kw : {"import tilelang", "import tilelang.language as T", "tilelang.jit", "tilelang.autotune"})
        apis_->add(QLatin1String(kw));
    apis_->prepare();
    setAutoCompletionSource(QsciScintilla::AcsAll);
    setAutoCompletionThreshold(2);
    setAutoCompletionCaseSensitivity(true);
    setAutoCompletionReplaceWord(true);
    setCallTipsStyle(QsciScintilla::CallTipsContext);
    setCallTipsVisible(0);

    setIndentationsUseTabs(false);
    setIndentationWidth(4);
    setTabWidth(4);
    setAutoIndent(true);
    setBackspaceUnindents(true);
    setIndentationGuides(true);
    setBraceMatching(QsciScintilla::SloppyBraceMatch);
    setCaretLineVisible(true);
    setEdgeMode(QsciScintilla::EdgeLine);
    setEdgeColumn(100);
    setFolding(QsciScintilla::BoxedTreeFoldStyle, 2);
    setMarginType(0, QsciScintilla::NumberMargin);
    setMarginType(1, QsciScintilla::SymbolMargin);
    setMarginWidth(1, 14);
    setMarginSensitivity(1, false);
    setMarginMarkerMask(1, (1 << marks::kError) | (1 << marks::kWarning) | (1 << marks::kNote) | (1 << marks::kLinkedArrow));
    setMarginMarkerMask(0, 0);
    setMarginType(kNotesMargin, QsciScintilla::TextMargin);
    setMarginWidth(kNotesMargin, 0);
    markerDefine(QsciScintilla::Circle, marks::kError);
    markerDefine(QsciScintilla::Circle, marks::kWarning);
    markerDefine(QsciScintilla::Circle, marks::kNote);
    for (int i = 0; i < kLinkColorCount; ++i) markerDefine(QsciScintilla::Background, marks::kLinkFirst + i);
    markerDefine(QsciScintilla::Background, marks::kLinked);
    markerDefine(QsciScintilla::RightArrow, marks::kLinkedArrow);
    indicatorDefine(QsciScintilla::SquiggleIndicator, marks::kIndError);
    indicatorDefine(QsciScintilla::SquiggleIndicator, marks::kIndWarning);
    indicatorDefine(QsciScintilla::DotsIndicator, marks::kIndNote);
    SendScintilla(SCI_SETMOUSEDWELLTIME, 400);
    connect(this, &QsciScintillaBase::SCN_DWELLSTART, this, &DslEditor::on_dwell);
    connect(this, &QsciScintillaBase::SCN_DWELLEND, this, [] { QToolTip::hideText(); });
    connect(this, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
        if (line + 1 != last_caret_line_) {
            last_caret_line_ = line + 1;
            Q_EMIT caret_line_changed(last_caret_line_);
        }
    });
    apply_theme(dark_theme(), 11);
}

void DslEditor::apply_theme(const Theme& t, int font_size) {
    theme_ = &t;
    QFont font(QStringLiteral("DejaVu Sans Mono"), font_size);
    font.setStyleHint(QFont::Monospace);
    lexer_->apply_theme(t, font);
    setMarginsFont(font);
    setMarginsBackgroundColor(t.margin);
    setMarginsForegroundColor(t.margin_text);
    setMarginWidth(0, QStringLiteral("00000"));
    setFoldMarginColors(t.margin, t.margin);
    setCaretForegroundColor(t.text);
    setCaretLineBackgroundColor(t.caret_line);
    setSelectionBackgroundColor(t.selection);
    setSelectionForegroundColor(t.text);
    setIndentationGuidesBackgroundColor(t.base);
    setIndentationGuidesForegroundColor(t.grid);
    setEdgeColor(t.grid);
    setMatchedBraceBackgroundColor(t.selection);
    setMatchedBraceForegroundColor(t.text);
    setMarkerBackgroundColor(t.error, marks::kError);
    setMarkerForegroundColor(t.error, marks::kError);
    setMarkerBackgroundColor(t.warning, marks::kWarning);
    setMarkerForegroundColor(t.warning, marks::kWarning);
    setMarkerBackgroundColor(t.note, marks::kNote);
    setMarkerForegroundColor(t.note, marks::kNote);
    for (int i = 0; i < kLinkColorCount; ++i) setMarkerBackgroundColor(t.link_color(i), marks::kLinkFirst + i);
    setMarkerBackgroundColor(t.link_highlight(), marks::kLinked);
    setMarkerBackgroundColor(t.builtin, marks::kLinkedArrow);
    setMarkerForegroundColor(t.builtin, marks::kLinkedArrow);
    setIndicatorForegroundColor(t.error, marks::kIndError);
    setIndicatorForegroundColor(t.warning, marks::kIndWarning);
    setIndicatorForegroundColor(t.note, marks::kIndNote);
    setCallTipsBackgroundColor(t.base);
    setCallTipsForegroundColor(t.text);
    setCallTipsHighlightColor(t.builtin);
}

void DslEditor::set_problems(const std::vector<Problem>& problems) {
    problems_ = problems;
    for (int m : {marks::kError, marks::kWarning, marks::kNote}) markerDeleteAll(m);
    int last = lines() - 1;
    int last_len = last >= 0 ? text(last).length() : 0;
    for (int ind : {marks::kIndError, marks::kIndWarning, marks::kIndNote}) clearIndicatorRange(0, 0, last, last_len, ind);
    for (const auto& p : problems_) {
        if (p.line <= 0 || p.line > lines()) continue;
        int marker = p.severity == tp::Severity::Error ? marks::kError : p.severity == tp::Severity::Warning ? marks::kWarning : marks::kNote;
        int ind = marker == marks::kError ? marks::kIndError : marker == marks::kWarning ? marks::kIndWarning : marks::kIndNote;
        markerAdd(p.line - 1, marker);
        int l0 = p.line - 1, c0 = std::max(0, p.col - 1);
        int l1 = std::max(l0, p.end_line - 1), c1 = p.end_col > 0 ? p.end_col - 1 : c0 + 1;
        if (l1 == l0 && c1 <= c0) c1 = c0 + 1;
        int line_len = text(l1).length();
        // A span with no width (or past the line) still gets a visible squiggle under the word.
        if (c0 >= line_len) c0 = std::max(0, line_len - 2), c1 = line_len;
        fillIndicatorRange(l0, c0, l1, std::min(c1, std::max(line_len, 1)), ind);
    }
}

void DslEditor::set_margin_notes(const std::vector<LayoutMarginNote>& notes) {
    notes_ = notes;
    clearMarginText();
    setMarginWidth(kNotesMargin, notes_.empty() ? 0 : QStringLiteral("000x "));
    if (notes_.empty() || !theme_) return;
    const QFont font = lexer_->font(0);  // the code font, as the other margins use
    QsciStyle bad(-1, QStringLiteral("bank conflict"), theme_->error, theme_->margin, font);
    QsciStyle ok(-1, QStringLiteral("conflict free"), theme_->margin_text, theme_->margin, font);
    for (const auto& n : notes_)
        if (n.line > 0 && n.line <= lines()) setMarginText(n.line - 1, n.text, n.degree > 1 ? bad : ok);
}

void DslEditor::set_link_lines(const std::vector<int>& dsl_lines) {
    for (int i = 0; i < kLinkColorCount; ++i) markerDeleteAll(marks::kLinkFirst + i);
    link_lines_ = dsl_lines;
    for (int l : dsl_lines)
        if (l > 0 && l <= lines()) markerAdd(l - 1, marks::link_marker(l));
}

void DslEditor::set_linked_lines(const std::vector<int>& ls) {
    markerDeleteAll(marks::kLinked);
    markerDeleteAll(marks::kLinkedArrow);
    for (int l : ls)
        if (l > 0 && l <= lines()) {
            markerAdd(l - 1, marks::kLinked);
            markerAdd(l - 1, marks::kLinkedArrow);
        }
    if (!ls.empty() && ls.front() > 0) ensureLineVisible(ls.front() - 1);
}

void DslEditor::go_to(int line, int col) {
    if (line <= 0) return;
    setCursorPosition(line - 1, std::max(0, col - 1));
    ensureLineVisible(line - 1);
    setFocus();
}

int DslEditor::caret_line() const {
    int l = 0, c = 0;
    getCursorPosition(&l, &c);
    return l + 1;
}

void DslEditor::toggle_comment() {
    int l0, c0, l1, c1;
    if (hasSelectedText()) getSelection(&l0, &c0, &l1, &c1);
    else getCursorPosition(&l0, &c0), l1 = l0, c1 = c0;
    if (l1 > l0 && c1 == 0) --l1;
    bool all_commented = true;
    for (int l = l0; l <= l1; ++l) {
        QString t = text(l).trimmed();
        if (!t.isEmpty() && !t.startsWith('#')) all_commented = false;
    }
    beginUndoAction();
    for (int l = l0; l <= l1; ++l) {
        QString t = text(l);
        if (t.trimmed().isEmpty()) continue;
        int first = t.indexOf(QRegularExpression("\\S"));
        if (all_commented) {
            int n = t.mid(first, 2) == "# " ? 2 : 1;
            setSelection(l, first, l, first + n);
            removeSelectedText();
        } else {
            insertAt(QStringLiteral("# "), l, first);
        }
    }
    endUndoAction();
}

void DslEditor::on_dwell(int position, int x, int y) {
    if (position < 0) return;
    int line = 0, index = 0;
    lineIndexFromPosition(position, &line, &index);
    QStringList msgs;
    for (const auto& p : problems_)
        if (p.line == line + 1 && (p.end_line > p.line || index + 1 >= p.col - 1))
            msgs << QStringLiteral("<b>%1</b>: %2 <i>[%3]</i>")
                        .arg(QString::fromLatin1(tp::severity_name(p.severity)), p.message.toHtmlEscaped(), p.kind);
    for (const auto& n : notes_)
        if (n.line == line + 1) msgs << n.tooltip.toHtmlEscaped().replace('\n', QStringLiteral("<br>"));
    if (msgs.isEmpty()) {
        // A builtin under the mouse: show its signature and what it does.
        QString w = wordAtLineIndex(line, index);
        if (const Builtin* b = find_builtin(w); b && text(line).contains("T." + w))
            msgs << QStringLiteral("<code>T.%1%2</code><br>%3").arg(w, QString::fromLatin1(b->signature).toHtmlEscaped(), QLatin1String(b->doc));
    }
    if (!msgs.isEmpty()) QToolTip::showText(mapToGlobal(QPoint(x, y)), msgs.join("<br>"), this);
}

int DslEditor::width_for_columns(int columns) {
    // The lexer's styles set the code font (STYLE_DEFAULT may be another size): the widest of
    // the first few is what a line of code takes.
    long digit = 0;
    for (unsigned long style = 0; style < 16; ++style) digit = std::max(digit, SendScintilla(SCI_TEXTWIDTH, style, "0"));
    long margins = 0;
    for (int m = 0; m < 5; ++m) margins += SendScintilla(SCI_GETMARGINWIDTHN, static_cast<unsigned long>(m));
    // The vertical scroll bar and a little air, so column `columns` is not under it.
    return static_cast<int>(margins + digit * columns) + 24;
}

}  // namespace tpui
