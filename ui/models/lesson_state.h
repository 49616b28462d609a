// The open lesson (a lessons/*.py file: a kernel with a gap, a check and hints): its title, the
// hints revealed so far (in the header's order, one at a time), and whether the last Run passed
// its check. Widget-free: the main window feeds it the document's header and each run result,
// the lesson banner shows it, and tests drive it directly.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

namespace tpui {

struct RunResult;

class LessonState : public QObject {
    Q_OBJECT
public:
    enum class Status {
        NotRun,       // no run since the lesson was opened
        Passed,       // ran, checked against the reference, matched, no race findings
        CheckFailed,  // ran, but the output differs from the reference (or races were found)
        RunFailed,    // did not compile or stopped (out of bounds, an assertion, ...)
        NotJudged,    // ran without a reference check (a GPU run: lessons check on the CPU)
    };

    using QObject::QObject;

    // The document's lesson, from its `# tileplay: lesson` / `hint` lines; an empty title means
    // the document is no lesson. The same lesson again (an edit, a recompile) keeps the hints
    // revealed and the last status; another one starts afresh.
    void set_lesson(const QString& title, const QStringList& hints);
    bool active() const { return !title_.isEmpty(); }
    QString title() const { return title_; }

    const QStringList& hints() const { return hints_; }
    int revealed_count() const { return revealed_; }
    QStringList revealed_hints() const { return hints_.mid(0, revealed_); }
    bool has_more_hints() const { return revealed_ < hints_.size(); }
    // Shows the next hint and returns it; empty when all are shown (or there is no lesson).
    QString reveal_next_hint();

    // Judges a finished Run of the lesson (ignored when no lesson is open).
    void set_run_result(const RunResult& r);
    Status status() const { return status_; }
    bool passed() const { return status_ == Status::Passed; }
    // One sentence for the banner, the status bar and the Results panel: "Lesson passed: ...".
    QString status_text() const { return status_text_; }

Q_SIGNALS:
    void changed();

private:
    QString title_;
    QStringList hints_;
    int revealed_ = 0;
    Status status_ = Status::NotRun;
    QString status_text_;
};

}  // namespace tpui
