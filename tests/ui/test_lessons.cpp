// Lessons and the race checker in the window. A lesson opened from the welcome page shows its
// banner; Run on the CPU fails its check as shipped (the banner offers a hint, and Hint reveals
// it); the solution's text in the editor passes, which the banner, the status bar and the
// Results panel say. With Run > Check races on, a racy kernel's findings reach the Problems
// list and the editor's margin at both lines; off, none. Set TILEPLAY_LESSON_SHOTS=DIR to keep
// PNGs of the welcome page and the passed lesson there for a person to look at.
#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QtTest>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/problems_model.h"
#include "panels/parameters/parameters_panel.h"
#include "panels/welcome/welcome_panel.h"
#include "session/run_service.h"
#include "settings.h"
#include "tileplay/lessons.h"

using namespace tpui;

namespace {

QString read_text(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    return QString::fromUtf8(f.readAll());
}

void save_shot(QWidget& w, const QString& name) {
    const QString dir = qEnvironmentVariable("TILEPLAY_LESSON_SHOTS");
    if (dir.isEmpty()) return;
    QTest::qWait(300);  // let the docks lay out and paint
    QDir().mkpath(dir);
    QVERIFY(w.grab().save(dir + "/" + name + ".png"));
}

// Runs the editor's text on the CPU through Run, to the end of the job.
void run_and_wait(MainWindow& w) {
    QTRY_VERIFY_WITH_TIMEOUT(!w.compile_service()->busy(), 60000);
    QSignalSpy done(w.run_service(), &RunService::job_finished);
    w.findChild<QAction*>("action_run")->trigger();
    QVERIFY(done.wait(60000));
}

}  // namespace

class TestLessons : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        QSettings().clear();  // a first start: no last file, no saved layout or toggle
    }

    void open_fail_hint_solve() {
        const auto lessons = tp::list_lessons(TILEPLAY_SOURCE_DIR "/lessons");
        QVERIFY(lessons.size() >= 6);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.findChild<ParametersPanel*>()->set_cpu(true);

        // The welcome page lists the lessons in order beside the samples, title and summary.
        auto* welcome = w.findChild<WelcomePanel*>();
        auto* list = welcome->findChild<QListWidget*>("welcome_lessons");
        QVERIFY(list && list->isVisible());
        QCOMPARE(list->count(), int(lessons.size()));
        for (int i = 0; i < list->count(); ++i) {
            QVERIFY2(list->item(i)->text().startsWith(QStringLiteral("%1. %2\n").arg(i + 1).arg(QString::fromStdString(lessons[i].title))),
                     qPrintable(list->item(i)->text()));
            QCOMPARE(list->item(i)->data(Qt::UserRole).toString(), QString::fromStdString(lessons[i].path));
        }
        QVERIFY(welcome->findChild<QListWidget*>("welcome_samples")->count() > 0);
        auto* banner = w.findChild<QWidget*>("lesson_banner");
        QVERIFY(banner && !banner->isVisible());  // no lesson open
        save_shot(w, "welcome-with-lessons");

        // Open the first lesson with the keyboard, as a user picks an entry.
        list->setCurrentRow(0);
        QTest::keyClick(list, Qt::Key_Return);
        auto* stack = qobject_cast<QStackedWidget*>(welcome->parentWidget());
        QVERIFY(stack->currentWidget() != welcome);
        QCOMPARE(w.editor()->text(), read_text(QString::fromStdString(lessons[0].path)));
        QVERIFY(banner->isVisible());
        QVERIFY(w.findChild<QLabel*>("lesson_title")->text().contains(QString::fromStdString(lessons[0].title)));

        // As shipped, the check fails, and the banner offers the hint.
        run_and_wait(w);
        auto* status = w.findChild<QLabel*>("lesson_status");
        QTRY_VERIFY2(status->text().contains("Check failed"), qPrintable(status->text()));
        QVERIFY2(status->text().contains("Hint"), qPrintable(status->text()));
        QVERIFY(w.findChild<QLabel*>("results_status")->text().contains("Check failed"));
        auto* hint = w.findChild<QPushButton*>("lesson_hint_button");
        auto* hints = w.findChild<QLabel*>("lesson_hints");
        QVERIFY(hint->isEnabled());
        QVERIFY(!hints->isVisible());
        QTest::mouseClick(hint, Qt::LeftButton);
        QVERIFY(hints->isVisible());
        QVERIFY2(hints->text().contains("Hint 1.") && !hints->text().contains("Hint 2."), qPrintable(hints->text()));
        save_shot(w, "lesson-failed-hint");

        // The solution's text in the editor (an edit, as if typed): the check passes.
        // The code views follow once its (debounced) compile is back.
        QSignalSpy compiled(w.compile_service(), &CompileService::finished);
        w.editor()->selectAll();
        w.editor()->replaceSelectedText(read_text(QString::fromStdString(lessons[0].solution)));
        QTRY_VERIFY_WITH_TIMEOUT(!compiled.isEmpty(), 60000);
        run_and_wait(w);
        QTRY_VERIFY2(status->text().contains("Lesson passed"), qPrintable(status->text()));
        QVERIFY2(w.findChild<QLabel*>("results_status")->text().contains("Lesson passed"),
                 qPrintable(w.findChild<QLabel*>("results_status")->text()));
        QVERIFY2(w.statusBar()->currentMessage().startsWith("Lesson passed"), qPrintable(w.statusBar()->currentMessage()));
        QVERIFY(hints->text().contains("Hint 1."));  // what was revealed stays
        save_shot(w, "lesson-passed");
        w.editor()->setModified(false);  // nothing to ask about on close
    }

    // The toggle sends check_races with the CPU run; the findings land in Problems and the
    // editor's margin at the race's two lines; off, the same kernel runs without any.
    void check_races_toggle() {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* params = w.findChild<ParametersPanel*>();
        auto* toggle = w.findChild<QAction*>("action_check_races");
        QVERIFY(toggle && toggle->isCheckable());
        params->set_cpu(false);
        QVERIFY(!toggle->isEnabled());  // the checker is the CPU interpreter's
        params->set_cpu(true);
        QVERIFY(toggle->isEnabled());
        toggle->setChecked(true);
        QVERIFY(Settings::check_races());  // persisted

        const QString racy = TILEPLAY_SOURCE_DIR "/tests/errors/fail_shared_memory_race.py";
        QVERIFY(w.open_file(racy));
        run_and_wait(w);
        auto* problems = w.findChild<ProblemsModel*>();
        auto races = [problems] {
            std::vector<Problem> out;
            for (const auto& p : problems->problems())
                if (p.kind == "SharedMemoryRace") out.push_back(p);
            return out;
        };
        const int compile_rows = problems->rowCount() - int(races().size());
        // The CLI's lines for this file: the read (error) at 23, the other thread's write at 21.
        std::vector<Problem> found = races();
        QCOMPARE(int(found.size()), 2);
        QCOMPARE(found[0].line, 23);
        QCOMPARE(found[0].severity, tp::Severity::Error);
        // The other access named by file and line, as the CLI names it.
        QVERIFY2(found[0].message.contains("write-read race on shared `tile`") && found[0].message.contains("fail_shared_memory_race.py:21:"),
                 qPrintable(found[0].message));
        QCOMPARE(found[1].line, 21);
        QCOMPARE(found[1].severity, tp::Severity::Note);
        QVERIFY2(found[1].message.contains("the other access"), qPrintable(found[1].message));
        // The margin marks come from the same list.
        QCOMPARE(int(w.editor()->problems().size()), problems->rowCount());
        QVERIFY(w.findChild<QDockWidget*>("dock_problems")->isVisible());
        save_shot(w, "race-findings");

        toggle->setChecked(false);
        QVERIFY(!Settings::check_races());
        run_and_wait(w);
        QVERIFY(races().empty());
        QCOMPARE(problems->rowCount(), compile_rows);
        QCOMPARE(int(w.editor()->problems().size()), compile_rows);
    }
};

QTEST_MAIN(TestLessons)
#include "test_lessons.moc"
