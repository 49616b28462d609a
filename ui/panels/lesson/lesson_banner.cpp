// LessonBanner: hidden when the document is no lesson; rebuilt from the state on each change.
#include "panels/lesson/lesson_banner.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

#include "models/lesson_state.h"

namespace tpui {

namespace {

// Hint text marks code with backticks, as the lessons' comments do: shown in a code font.
QString hint_html(const QString& text) {
    QStringList parts = text.toHtmlEscaped().split('`');
    QString out;
    for (int i = 0; i < parts.size(); ++i) out += i % 2 ? QStringLiteral("<code>%1</code>").arg(parts[i]) : parts[i];
    return out;
}

}  // namespace

LessonBanner::LessonBanner(LessonState* state, QWidget* parent) : QFrame(parent), state_(state) {
    setObjectName("lesson_banner");
    setFrameShape(QFrame::StyledPanel);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(8, 4, 8, 4);
    v->setSpacing(2);
    auto* row = new QHBoxLayout;
    title_ = new QLabel;
    title_->setObjectName("lesson_title");
    status_ = new QLabel;
    status_->setObjectName("lesson_status");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hint_ = new QPushButton(tr("Hint"));
    hint_->setObjectName("lesson_hint_button");
    hint_->setToolTip(tr("Show the lesson's next hint"));
    row->addWidget(title_);
    row->addWidget(status_, 1);
    row->addWidget(hint_);
    v->addLayout(row);
    hints_ = new QLabel;
    hints_->setObjectName("lesson_hints");
    hints_->setWordWrap(true);
    hints_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(hints_);
    connect(hint_, &QPushButton::clicked, state_, [this] { state_->reveal_next_hint(); });
    connect(state_, &LessonState::changed, this, &LessonBanner::update_from_state);
    update_from_state();
}

void LessonBanner::update_from_state() {
    setVisible(state_->active());
    if (!state_->active()) return;
    title_->setText(tr("<b>Lesson:</b> %1").arg(state_->title().toHtmlEscaped()));
    // Colours that read on the dark and the light theme alike.
    const char* colour = state_->status() == LessonState::Status::Passed   ? "#3fb950"
                         : state_->status() == LessonState::Status::NotRun ? ""
                                                                           : "#f0524f";
    const QString text = state_->status_text().toHtmlEscaped();
    status_->setText(*colour ? QStringLiteral("<span style='color:%1'>%2</span>").arg(colour, text) : text);
    const int shown = state_->revealed_count(), total = int(state_->hints().size());
    hint_->setEnabled(state_->has_more_hints());
    hint_->setText(total == 0 ? tr("No hints") : state_->has_more_hints() ? tr("Hint (%1 of %2)").arg(shown + 1).arg(total) : tr("All hints shown"));
    QStringList items;
    for (int i = 0; i < shown; ++i) items << tr("<b>Hint %1.</b> %2").arg(i + 1).arg(hint_html(state_->hints()[i]));
    hints_->setText(items.join("<br>"));
    hints_->setVisible(shown > 0);
}

}  // namespace tpui
