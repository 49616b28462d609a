// CodeView: margin 0 = line numbers, 1 = the caret-link arrow.
#include "views/code_view.h"

#include <QToolTip>

#include "editor/margin_marks.h"
#include "views/code_lexer.h"

namespace tpui {

CodeView::CodeView(CodeKind kind, QWidget* parent) : QsciScintilla(parent), kind_(kind) {
    setUtf8(true);
    lexer_ = new CodeLexer(kind, this);
    setLexer(lexer_);
    setReadOnly(true);
    setCaretLineVisible(true);
    setWrapMode(QsciScintilla::WrapNone);
    setMarginType(0, QsciScintilla::NumberMargin);
    setMarginType(1, QsciScintilla::SymbolMargin);
    setMarginWidth(1, 12);
    setMarginMarkerMask(1, 1 << marks::kLinkedArrow);
    setMarginMarkerMask(0, 0);
    for (int i = 0; i < kLinkColorCount; ++i) markerDefine(QsciScintilla::Background, marks::kLinkFirst + i);
    markerDefine(QsciScintilla::Background, marks::kLinked);
    markerDefine(QsciScintilla::RightArrow, marks::kLinkedArrow);
    SendScintilla(SCI_SETMOUSEDWELLTIME, 350);
    connect(this, &QsciScintillaBase::SCN_DWELLSTART, this, &CodeView::on_dwell);
    connect(this, &QsciScintillaBase::SCN_DWELLEND, this, [] { QToolTip::hideText(); });
    connect(this, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) {
        if (!programmatic_) Q_EMIT caret_line_changed(line + 1);
    });
    apply_theme(dark_theme(), 10);
}

int entry_line(const QString& text, CodeKind kind) {
    // PTX opens with the module's globals (template statics, print strings) and SASS with
    // section headers; the kernel starts at `.entry` / `Function :`.
    const char* needle = kind == CodeKind::Ptx ? ".entry " : kind == CodeKind::Sass ? "Function :" : nullptr;
    int pos = needle ? text.indexOf(QLatin1String(needle)) : -1;
    return pos < 0 ? 0 : int(text.left(pos).count(QLatin1Char('\n')));
}

void CodeView::set_code(const QString& text, const tp::LineMap& map) {
    programmatic_ = true;
    // A recompile keeps the reader's place; a first text opens at the kernel.
    const bool first_text = length() == 0;
    int first = first_text ? std::max(0, entry_line(text, kind_) - 1) : firstVisibleLine();
    setText(text);
    setFirstVisibleLine(first);
    for (int i = 0; i < kLinkColorCount; ++i) markerDeleteAll(marks::kLinkFirst + i);
    for (size_t i = 0; i < map.to_dsl.size() && int(i) < lines(); ++i)
        if (map.to_dsl[i] > 0) markerAdd(int(i), marks::link_marker(int(map.to_dsl[i])));
    counts_ = count_tokens(text.toStdString(), kind_);
    setMarginWidth(0, QString(QString::number(lines()).size() + 1, '0'));
    programmatic_ = false;
}

void CodeView::set_linked_lines(const std::vector<int>& ls) {
    markerDeleteAll(marks::kLinked);
    markerDeleteAll(marks::kLinkedArrow);
    for (int l : ls)
        if (l > 0 && l <= lines()) {
            markerAdd(l - 1, marks::kLinked);
            markerAdd(l - 1, marks::kLinkedArrow);
        }
    if (!ls.empty()) {
        // Keep the first linked line in view without moving the caret (which would re-link).
        int first = ls.front() - 1;
        if (first < firstVisibleLine() || first >= firstVisibleLine() + SendScintilla(SCI_LINESONSCREEN))
            setFirstVisibleLine(std::max(0, first - 3));
    }
}

void CodeView::apply_theme(const Theme& t, int font_size) {
    QFont font(QStringLiteral("DejaVu Sans Mono"), font_size);
    font.setStyleHint(QFont::Monospace);
    lexer_->apply_theme(t, font);
    setMarginsFont(font);
    setMarginsBackgroundColor(t.margin);
    setMarginsForegroundColor(t.margin_text);
    setCaretForegroundColor(t.text);
    setCaretLineBackgroundColor(t.caret_line);
    setSelectionBackgroundColor(t.selection);
    for (int i = 0; i < kLinkColorCount; ++i) setMarkerBackgroundColor(t.link_color(i), marks::kLinkFirst + i);
    setMarkerBackgroundColor(t.link_highlight(), marks::kLinked);
    setMarkerBackgroundColor(t.builtin, marks::kLinkedArrow);
    setMarkerForegroundColor(t.builtin, marks::kLinkedArrow);
    recolor();
}

void CodeView::on_dwell(int position, int x, int y) {
    if (position < 0) return;
    // Scintilla positions are bytes; the card lookup works on the line's UTF-8 bytes too.
    int line = int(SendScintilla(SCI_LINEFROMPOSITION, position));
    int col = position - int(SendScintilla(SCI_POSITIONFROMLINE, line));
    QByteArray bytes = text(line).toUtf8();
    HoverCard card = hover_card_at(std::string_view(bytes.constData(), size_t(bytes.size())), col, kind_);
    if (!card.empty()) QToolTip::showText(viewport()->mapToGlobal(QPoint(x, y)), card.html(), this);
}

}  // namespace tpui
