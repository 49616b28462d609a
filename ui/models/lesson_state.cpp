// LessonState: judging a run is the only logic; the rest is bookkeeping for the banner.
#include "models/lesson_state.h"

#include <algorithm>

#include "models/run_result.h"

namespace tpui {

void LessonState::set_lesson(const QString& title, const QStringList& hints) {
    if (title == title_ && hints == hints_) return;
    // The same lesson with its hints edited keeps what was revealed, as far as it still goes.
    const bool same = !title.isEmpty() && title == title_;
    title_ = title;
    hints_ = hints;
    revealed_ = same ? std::min<int>(revealed_, int(hints_.size())) : 0;
    if (!same) {
        status_ = Status::NotRun;
        status_text_ = title_.isEmpty() ? QString() : tr("Fill in the gap marked TODO(lesson), then Run: the check must pass");
    }
    Q_EMIT changed();
}

QString LessonState::reveal_next_hint() {
    if (!active() || !has_more_hints()) return {};
    ++revealed_;
    Q_EMIT changed();
    return hints_[revealed_ - 1];
}

void LessonState::set_run_result(const RunResult& r) {
    if (!active()) return;
    const QString hint = has_more_hints() ? tr("; stuck? Hint shows the next hint") : QString();
    if (r.cancelled) {
        status_ = Status::NotRun;
        status_text_ = tr("The run was cancelled before the check");
    } else if (!r.ok) {
        status_ = Status::RunFailed;
        status_text_ = tr("The run failed: %1%2").arg(r.error.isEmpty() ? tr("see Problems and Output") : r.error, hint);
    } else if (!r.cpu || !r.checked) {
        // A GPU run is compared with the interpreter, which runs the same gap: only the C++
        // reference of a CPU run can say the lesson is solved.
        status_ = Status::NotJudged;
        status_text_ = r.cpu ? tr("The run was not checked: %1").arg(r.note.isEmpty() ? tr("the lesson names no reference") : r.note)
                             : tr("Lessons are checked on the CPU against the C++ reference: choose CPU under Run on (Parameters) and Run");
    } else if (!r.races.empty()) {
        status_ = Status::CheckFailed;
        status_text_ = tr("Check failed: the race checker found %n race(s), see Problems%1", nullptr, int(r.races.size())).arg(hint);
    } else if (!r.correct && r.nonfinite > 0) {
        status_ = Status::CheckFailed;
        status_text_ = tr("Check failed: %n output value(s) are inf or NaN where the reference is finite%1", nullptr, int(r.nonfinite)).arg(hint);
    } else if (!r.correct) {
        status_ = Status::CheckFailed;
        status_text_ =
            tr("Check failed: the output differs from the reference (relative error %1)%2").arg(QString::number(r.rel_error, 'g', 3), hint);
    } else {
        status_ = Status::Passed;
        status_text_ = tr("Lesson passed: the output matches the reference (relative error %1)").arg(QString::number(r.rel_error, 'g', 3));
    }
    Q_EMIT changed();
}

}  // namespace tpui
