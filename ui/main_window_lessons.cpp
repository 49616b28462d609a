// MainWindow and lessons: the lesson banner above the editor follows the document's
// `# tileplay: lesson` header; a finished Run is judged as the lesson's check (the banner, the
// status bar and the Results panel say whether it passed). And the race checker: Run > Check
// races sends check_races with CPU runs, and its findings join the compile's problems in the
// Problems list and the editor's margin, at both lines of each race.
#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QStatusBar>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/lesson_state.h"
#include "panels/parameters/parameters_panel.h"
#include "panels/results/results_panel.h"
#include "settings.h"

namespace tpui {

void MainWindow::add_check_races_action(QMenu* run) {
    check_races_ = run->addAction(tr("Check &races"));
    check_races_->setObjectName("action_check_races");
    check_races_->setCheckable(true);
    check_races_->setChecked(Settings::check_races());
    connect(check_races_, &QAction::toggled, this, [](bool on) { Settings::set_check_races(on); });
    addAction(check_races_);
}

void MainWindow::update_check_races_action() {
    if (!check_races_) return;
    const bool cpu = params_ && workers_ && run_cpu();
    check_races_->setEnabled(cpu);
    check_races_->setToolTip(cpu ? tr("Run with the interpreter's race checker: shared-memory races, async copies read before their "
                                      "wait and mbarrier phases that cannot complete, listed in Problems at both lines")
                                 : tr("The race checker runs on the CPU interpreter: choose CPU under Run on (Parameters)"));
}

void MainWindow::update_lesson() {
    QStringList hints;
    for (const auto& h : header_.hints) hints << QString::fromStdString(h);
    lesson_->set_lesson(QString::fromStdString(header_.lesson), hints);
}

void MainWindow::publish_problems() {
    std::vector<Problem> all = compile_problems_;
    all.insert(all.end(), run_problems_.begin(), run_problems_.end());
    problems_model_->set_problems(all);
    editor_->set_problems(all);
}

void MainWindow::judge_run(const RunResult& r) {
    // Each Run replaces the last one's findings (a run without the checker has none).
    run_problems_ = problems_from_races(r.races);
    publish_problems();
    if (r.races_checked) {
        if (!r.races.empty()) {
            if (auto* d = findChild<QDockWidget*>("dock_problems")) {
                d->show();
                d->raise();
            }
            statusBar()->showMessage(tr("race check: %n finding(s), in Problems at both lines", nullptr, int(r.races.size())), 15000);
        } else {
            statusBar()->showMessage(tr("race check: no findings (%1)").arg(r.races_scope), 15000);
        }
    }
    if (!lesson_->active()) return;
    lesson_->set_run_result(r);
    lesson_judged_ = true;
    statusBar()->showMessage(lesson_->status_text(), 15000);
}

// After the Results panel showed the job's own message: the lesson's verdict goes beside it.
void MainWindow::lesson_job_finished(bool, const QString& message) {
    if (!lesson_judged_ || !lesson_->active()) return;
    lesson_judged_ = false;
    results_->show_message(tr("%1 — %2").arg(message, lesson_->status_text()), !lesson_->passed());
}

}  // namespace tpui
