// ComparePanel: the diff comes from tp::diff_listings (core/inspect); both sides are laid out
// on the same rows (a blank row facing each line the other side lacks), so one scroll bar
// drives both and a row always faces its counterpart.
#include "panels/compare/compare_panel.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTableWidget>
#include <QTextBlock>
#include <QVBoxLayout>

#include "theme.h"

namespace tpui {

namespace {

QPlainTextEdit* listing_view() {
    auto* v = new QPlainTextEdit;
    v->setReadOnly(true);
    v->setLineWrapMode(QPlainTextEdit::NoWrap);
    v->setFont(QFont("monospace"));
    v->setMaximumBlockCount(0);
    return v;
}

// Rows of the table: every instruction, then one per class.
constexpr int kCountRows = 1 + tp::kInstrClassCount;

QString signed_text(int64_t d) { return d > 0 ? QStringLiteral("+%1").arg(d) : QString::number(d); }

}  // namespace

ComparePanel::ComparePanel(QWidget* parent) : QWidget(parent) {
    summary_ = new QLabel(tr("Pin a configuration (the button, or View > Pin configuration), change the parameters, "
                             "and compare the code the two compile to."));
    summary_->setWordWrap(true);
    isa_ = new QComboBox;
    isa_->addItems({tr("PTX"), tr("SASS")});
    isa_->setObjectName("compare_isa");
    pin_button_ = new QPushButton(tr("Pin current"));
    pin_button_->setObjectName("compare_pin");
    next_button_ = new QPushButton(tr("Next change"));
    next_button_->setObjectName("compare_next");
    counts_ = new QTableWidget(kCountRows, 3);
    counts_->setHorizontalHeaderLabels({tr("pinned"), tr("current"), tr("change")});
    QStringList rows = {tr("instructions")};
    for (int c = 0; c < tp::kInstrClassCount; ++c) rows << tp::instr_class_name(static_cast<tp::InstrClass>(c));
    counts_->setVerticalHeaderLabels(rows);
    counts_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    counts_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    counts_->setMaximumWidth(360);
    left_ = listing_view();
    right_ = listing_view();
    // One scroll position for both: rows face each other.
    connect(left_->verticalScrollBar(), &QScrollBar::valueChanged, right_->verticalScrollBar(), &QScrollBar::setValue);
    connect(right_->verticalScrollBar(), &QScrollBar::valueChanged, left_->verticalScrollBar(), &QScrollBar::setValue);

    auto* top = new QHBoxLayout;
    top->addWidget(summary_, 1);
    top->addWidget(isa_);
    top->addWidget(next_button_);
    top->addWidget(pin_button_);
    auto* split = new QSplitter(Qt::Horizontal);
    split->addWidget(counts_);
    split->addWidget(left_);
    split->addWidget(right_);
    split->setStretchFactor(1, 1);
    split->setStretchFactor(2, 1);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(2, 2, 2, 2);
    l->addLayout(top);
    l->addWidget(split, 1);

    connect(pin_button_, &QPushButton::clicked, this, &ComparePanel::pin_requested);
    connect(next_button_, &QPushButton::clicked, this, &ComparePanel::next_change);
    connect(isa_, &QComboBox::currentIndexChanged, this, &ComparePanel::rebuild);
    rebuild();
}

void ComparePanel::pin(const Side& s) {
    pinned_ = s;
    rebuild();
}

void ComparePanel::set_current(const Side& s) {
    current_ = s;
    if (has_pin()) rebuild();
}

void ComparePanel::show_sass(bool sass) { isa_->setCurrentIndex(sass ? 1 : 0); }

void ComparePanel::apply_theme(const Theme& t) {
    theme_ = &t;
    rebuild();
}

QString ComparePanel::count_cell(int row, int column) const {
    auto* item = counts_->item(row, column);
    return item ? item->text() : QString();
}

void ComparePanel::rebuild() {
    const bool sass = isa_->currentIndex() == 1;
    const tp::Isa isa = sass ? tp::Isa::Sass : tp::Isa::Ptx;
    const QString a = sass ? pinned_.sass : pinned_.ptx, b = sass ? current_.sass : current_.ptx;
    left_->clear();
    right_->clear();
    change_rows_.clear();
    diff_ = {};
    next_button_->setEnabled(false);
    if (!pinned_.valid() || !current_.valid()) {
        for (int r = 0; r < kCountRows; ++r)
            for (int c = 0; c < 3; ++c) counts_->setItem(r, c, new QTableWidgetItem);
        return;
    }
    // The counts first: they say what changed even when the listings cannot be aligned.
    const std::string sa = a.toStdString(), sb = b.toStdString();
    const tp::InstrCounts ca = tp::count_instructions(sa, isa), cb = tp::count_instructions(sb, isa);
    for (int r = 0; r < kCountRows; ++r) {
        const int64_t x = r == 0 ? ca.instructions : ca.by_class[r - 1], y = r == 0 ? cb.instructions : cb.by_class[r - 1];
        counts_->setItem(r, 0, new QTableWidgetItem(QString::number(x)));
        counts_->setItem(r, 1, new QTableWidgetItem(QString::number(y)));
        counts_->setItem(r, 2, new QTableWidgetItem(signed_text(y - x)));
    }
    diff_ = tp::diff_listings(sa, sb, isa);
    const QStringList la = a.split('\n'), lb = b.split('\n');
    QStringList left_rows, right_rows;
    std::vector<int> kinds;  // per aligned row: 0 same, 1 removed, 2 added
    for (const auto& d : diff_.lines) {
        left_rows << (d.left >= 0 ? la.value(d.left) : QString());
        right_rows << (d.right >= 0 ? lb.value(d.right) : QString());
        kinds.push_back(int(d.kind));
    }
    for (size_t i = 0; i < kinds.size(); ++i)
        if (kinds[i] != 0 && (i == 0 || kinds[i - 1] == 0)) change_rows_.push_back(int(i));
    left_->setPlainText(left_rows.join('\n'));
    right_->setPlainText(right_rows.join('\n'));
    // Colour the rows only one side has: removed on the left, added on the right.
    const QColor removed = theme_ ? theme_->error : QColor(200, 60, 60), added = theme_ ? theme_->note : QColor(60, 160, 60);
    auto mark = [&](QPlainTextEdit* view, int kind, QColor colour) {
        colour.setAlpha(70);
        QList<QTextEdit::ExtraSelection> sels;
        QTextBlock block = view->document()->firstBlock();
        for (size_t i = 0; i < kinds.size() && block.isValid(); ++i, block = block.next()) {
            if (kinds[i] != kind) continue;
            QTextEdit::ExtraSelection s;
            s.cursor = QTextCursor(block);
            s.format.setBackground(colour);
            s.format.setProperty(QTextFormat::FullWidthSelection, true);
            sels << s;
        }
        view->setExtraSelections(sels);
    };
    mark(left_, int(tp::ListingDiffLine::Removed), removed);
    mark(right_, int(tp::ListingDiffLine::Added), added);
    next_button_->setEnabled(!change_rows_.empty());
    QString lines = diff_.complete ? tr("%1 lines only in the pinned, %2 only in the current").arg(diff_.removed).arg(diff_.added)
                                   : tr("the listings differ in too many lines to align; compare the counts");
    summary_->setText(tr("<b>pinned</b> %1 &nbsp;↔&nbsp; <b>current</b> %2 — %3")
                          .arg(pinned_.config.toHtmlEscaped(), current_.config.toHtmlEscaped(), lines));
}

void ComparePanel::next_change() {
    if (change_rows_.empty()) return;
    const int at = left_->cursorForPosition(QPoint(0, 0)).blockNumber();
    int row = change_rows_.front();
    for (int r : change_rows_)
        if (r > at + 1) {
            row = r;
            break;
        }
    QTextCursor c(left_->document()->findBlockByNumber(row));
    left_->setTextCursor(c);
    left_->centerCursor();
}

}  // namespace tpui
