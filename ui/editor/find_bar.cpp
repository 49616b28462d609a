// FindBar: a thin layer over QsciScintilla::findFirst/findNext/replace.
#include "editor/find_bar.h"

#include <Qsci/qsciscintilla.h>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace tpui {

FindBar::FindBar(QsciScintilla* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(4, 2, 4, 2);
    v->setSpacing(2);
    auto* row = new QHBoxLayout;
    find_ = new QLineEdit;
    find_->setPlaceholderText(tr("Find"));
    case_ = new QCheckBox(tr("Aa"));
    case_->setToolTip(tr("Match case"));
    word_ = new QCheckBox(tr("Word"));
    word_->setToolTip(tr("Whole words"));
    auto* prev = new QPushButton(tr("Previous"));
    auto* next = new QPushButton(tr("Next"));
    auto* close = new QPushButton(tr("×"));
    close->setFlat(true);
    status_ = new QLabel;
    row->addWidget(find_, 1);
    row->addWidget(case_);
    row->addWidget(word_);
    row->addWidget(prev);
    row->addWidget(next);
    row->addWidget(status_);
    row->addWidget(close);
    v->addLayout(row);
    replace_row_ = new QWidget;
    auto* r2 = new QHBoxLayout(replace_row_);
    r2->setContentsMargins(0, 0, 0, 0);
    replace_ = new QLineEdit;
    replace_->setPlaceholderText(tr("Replace with"));
    auto* one = new QPushButton(tr("Replace"));
    auto* all = new QPushButton(tr("Replace all"));
    r2->addWidget(replace_, 1);
    r2->addWidget(one);
    r2->addWidget(all);
    v->addWidget(replace_row_);

    connect(find_, &QLineEdit::returnPressed, this, [this] { find_next(true); });
    connect(next, &QPushButton::clicked, this, [this] { find_next(true); });
    connect(prev, &QPushButton::clicked, this, [this] { find_next(false); });
    connect(close, &QPushButton::clicked, this, [this] {
        hide();
        editor_->setFocus();
    });
    connect(one, &QPushButton::clicked, this, [this] {
        if (editor_->hasSelectedText() && editor_->selectedText().compare(find_->text(), case_->isChecked() ? Qt::CaseSensitive : Qt::CaseInsensitive) == 0)
            editor_->replace(replace_->text());
        find_next(true);
    });
    connect(all, &QPushButton::clicked, this, [this] { replace_all(); });
    hide();
}

void FindBar::show_find(bool with_replace) {
    replace_row_->setVisible(with_replace);
    if (editor_->hasSelectedText() && !editor_->selectedText().contains('\n')) find_->setText(editor_->selectedText());
    show();
    find_->setFocus();
    find_->selectAll();
}

bool FindBar::find_next(bool forward) {
    if (find_->text().isEmpty()) return false;
    int line = 0, index = 0;
    editor_->getCursorPosition(&line, &index);
    if (!forward && editor_->hasSelectedText()) {
        int l0, c0, l1, c1;
        editor_->getSelection(&l0, &c0, &l1, &c1);
        line = l0, index = c0;
    }
    bool found = editor_->findFirst(find_->text(), false, case_->isChecked(), word_->isChecked(), true, forward, line, index);
    status_->setText(found ? QString() : tr("not found"));
    return found;
}

int FindBar::replace_all() {
    if (find_->text().isEmpty()) return 0;
    int n = 0;
    editor_->beginUndoAction();
    bool found = editor_->findFirst(find_->text(), false, case_->isChecked(), word_->isChecked(), false, true, 0, 0);
    while (found) {
        editor_->replace(replace_->text());
        ++n;
        found = editor_->findNext();
    }
    editor_->endUndoAction();
    status_->setText(tr("%n replaced", nullptr, n));
    return n;
}

void FindBar::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Escape) {
        hide();
        editor_->setFocus();
        return;
    }
    QWidget::keyPressEvent(e);
}

}  // namespace tpui
