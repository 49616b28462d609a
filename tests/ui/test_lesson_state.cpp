// The widget-free parts of lessons and race findings: LessonState reveals hints in the header's
// order and judges a run (passed only when a CPU run was checked against its reference, matched
// and the race checker found nothing); a run reply's race findings survive the JSON round trip
// and become Problems rows at both lines.
#include <QAbstractItemModelTester>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QtTest>

#include "models/lesson_state.h"
#include "models/problems_model.h"
#include "models/run_result.h"

using namespace tpui;

namespace {

RunResult cpu_result(bool correct, double rel) {
    RunResult r;
    r.cpu = true;
    r.checked = true;
    r.correct = correct;
    r.rel_error = rel;
    return r;
}

// A CPU run reply of `tilec worker` with one race finding, as core/worker/cpu_run.cpp writes it.
QJsonObject racy_reply() {
    const char* json = R"J({"ok": true, "device": "cpu", "interp": {"blocks_run": 1, "total_blocks": 1, "threads": 1, "ms": 2.5},
        "note": "interpreted 1 blocks in 2.5 ms on 1 threads; no reference check (the sample header names no baseline)",
        "races": {"scope": "shared memory of thread-level blocks", "findings": [{"kind": "SharedMemoryRace",
        "message": "write-read race on shared `tile` element [0]", "line": 24, "col": 21, "other_line": 22, "other_col": 17,
        "other_message": "the other access: thread 0 writes `tile[0]` here"}]}})J";
    return QJsonDocument::fromJson(json).object();
}

}  // namespace

class TestLessonState : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void hints_are_revealed_in_order() {
        LessonState s;
        QSignalSpy changed(&s, &LessonState::changed);
        QVERIFY(!s.active());
        QVERIFY(s.reveal_next_hint().isEmpty());  // no lesson, nothing to reveal
        s.set_lesson("Vector add", {"first", "second"});
        QVERIFY(s.active());
        QCOMPARE(changed.count(), 1);
        QCOMPARE(s.revealed_count(), 0);
        QVERIFY(s.has_more_hints());
        QCOMPARE(s.reveal_next_hint(), QString("first"));
        QCOMPARE(s.revealed_hints(), QStringList{"first"});
        QCOMPARE(s.reveal_next_hint(), QString("second"));
        QVERIFY(!s.has_more_hints());
        QVERIFY(s.reveal_next_hint().isEmpty());
        QCOMPARE(s.revealed_count(), 2);
        QCOMPARE(changed.count(), 3);
        // The same lesson again (a recompile after an edit) keeps what was shown...
        s.set_lesson("Vector add", {"first", "second"});
        QCOMPARE(s.revealed_count(), 2);
        QCOMPARE(changed.count(), 3);
        // ... and a hint line edited away shortens the list without going past its end.
        s.set_lesson("Vector add", {"first"});
        QCOMPARE(s.revealed_count(), 1);
        // Another lesson starts with none shown; a document that is no lesson ends it.
        s.set_lesson("Tiled GEMM", {"a", "b"});
        QCOMPARE(s.revealed_count(), 0);
        QCOMPARE(s.status(), LessonState::Status::NotRun);
        s.set_lesson({}, {});
        QVERIFY(!s.active());
    }

    void judges_a_run() {
        LessonState s;
        s.set_run_result(cpu_result(true, 0));  // no lesson open: nothing to judge
        QCOMPARE(s.status(), LessonState::Status::NotRun);
        s.set_lesson("Vector add", {"store it"});

        s.set_run_result(cpu_result(false, 1.0));
        QCOMPARE(s.status(), LessonState::Status::CheckFailed);
        QVERIFY2(s.status_text().startsWith("Check failed: the output differs from the reference (relative error 1)"), qPrintable(s.status_text()));
        QVERIFY(s.status_text().contains("Hint"));  // a hint is left: offered
        s.reveal_next_hint();
        s.set_run_result(cpu_result(false, 1.0));
        QVERIFY(!s.status_text().contains("Hint"));  // none left: not offered

        RunResult failed = cpu_result(false, -1);
        failed.ok = false;
        failed.error = "out of bounds";
        s.set_run_result(failed);
        QCOMPARE(s.status(), LessonState::Status::RunFailed);
        QVERIFY(s.status_text().contains("out of bounds"));

        // Ran, but with no reference check: not a pass.
        RunResult unchecked = cpu_result(true, -1);
        unchecked.checked = false;
        s.set_run_result(unchecked);
        QCOMPARE(s.status(), LessonState::Status::NotJudged);
        // A GPU run is compared with the interpreter, which has the same gap: not a pass either.
        RunResult gpu = cpu_result(true, 0);
        gpu.cpu = false;
        s.set_run_result(gpu);
        QCOMPARE(s.status(), LessonState::Status::NotJudged);
        QVERIFY(s.status_text().contains("choose CPU"));

        // A correct output with a race is still wrong.
        RunResult racy = cpu_result(true, 0);
        racy.races_checked = true;
        racy.races.push_back(RaceFinding{});
        s.set_run_result(racy);
        QCOMPARE(s.status(), LessonState::Status::CheckFailed);
        QVERIFY(s.status_text().contains("race checker found 1 race"));

        // inf or NaN where the reference is finite: said so, not as a relative error of 0.
        RunResult inf = cpu_result(false, 0);
        inf.nonfinite = 8192;
        s.set_run_result(run_result_from_json(run_result_to_json(inf)));
        QCOMPARE(s.status(), LessonState::Status::CheckFailed);
        QVERIFY2(s.status_text().startsWith("Check failed: 8192 output value(s) are inf or NaN"), qPrintable(s.status_text()));

        s.set_run_result(cpu_result(true, 2e-4));
        QVERIFY(s.passed());
        QCOMPARE(s.status_text(), QString("Lesson passed: the output matches the reference (relative error 0.0002)"));
    }

    // The worker's check object says whether a reference was compared at all.
    void checked_comes_from_the_reply() {
        QJsonObject reply{{"ok", true}, {"device", "cpu"}};
        QVERIFY(!run_result_from_json(reply).checked);
        reply["check"] = QJsonObject{{"ok", false}, {"against", "cpu reference: add"}};
        RunResult r = run_result_from_json(reply);
        QVERIFY(r.checked);
        QVERIFY(!r.correct);
        RunResult back = run_result_from_json(run_result_to_json(r));
        QVERIFY(back.checked);
        r.checked = false;
        QVERIFY(!run_result_from_json(run_result_to_json(r)).checked);
    }

    void race_findings_become_problems_at_both_lines() {
        RunResult r = run_result_from_json(racy_reply());
        QVERIFY(r.races_checked);
        QCOMPARE(int(r.races.size()), 1);
        QCOMPARE(r.races[0].line, 24);
        QCOMPARE(r.races[0].other_line, 22);
        RunResult back = run_result_from_json(run_result_to_json(r));
        QCOMPARE(int(back.races.size()), 1);
        QCOMPARE(back.races[0].other_message, r.races[0].other_message);
        QCOMPARE(back.races_scope, QString("shared memory of thread-level blocks"));
        QVERIFY(!run_result_from_json(QJsonObject{{"ok", true}}).races_checked);

        ProblemsModel m;
        QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        m.set_problems(problems_from_races(r.races));
        QCOMPARE(m.rowCount(), 2);
        QCOMPARE(m.error_count(), 1);
        QCOMPARE(m.index(0, ProblemsModel::Location).data().toString(), QString("24:21"));
        QCOMPARE(m.index(0, ProblemsModel::Kind).data().toString(), QString("SharedMemoryRace"));
        QCOMPARE(m.index(1, 0).data(ProblemsModel::LineRole).toInt(), 22);
        QCOMPARE(m.index(1, 0).data(ProblemsModel::SeverityRole).toInt(), int(tp::Severity::Note));
        QCOMPARE(m.index(1, ProblemsModel::Message).data().toString(), QString("the other access: thread 0 writes `tile[0]` here"));
    }
};

QTEST_MAIN(TestLessonState)
#include "test_lesson_state.moc"
