// Run on the CPU goes through `tilec worker` (the one in this build) like a GPU run: the run
// service starts a worker for it, the interpreter's progress, result, reference check and printed
// lines come back in the same reply shapes; Cancel (the button and Ctrl+.) kills a run that would
// never end within a second; a run whose tensors exceed the memory budget is refused before
// anything is allocated, naming the sizes and the parameter to reduce (and, in the window, a
// GPU size the header's cpu-args line did not set); a worker killed mid-run leaves the editor's
// text as it was and the next run starts a fresh worker.
#include <QAction>
#include <QElapsedTimer>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>
#include <csignal>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/parameters_model.h"
#include "models/results_model.h"
#include "panels/parameters/parameters_panel.h"
#include "session/run_service.h"
#include "settings.h"

using namespace tpui;

namespace {

QString read_sample(const char* name) {
    QFile f(QStringLiteral(TILEPLAY_SOURCE_DIR "/samples/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing sample %s", name);
    return QString::fromUtf8(f.readAll());
}

RunJob cpu_job(const char* sample, const Defines& sizes) {
    RunJob j;
    j.cpu = true;
    j.path = QStringLiteral(TILEPLAY_SOURCE_DIR "/samples/") + sample;
    j.source = read_sample(sample);
    j.fallback_defines = sizes;
    return j;
}

// A kernel whose one block loops 2^40 times: only Cancel ends it.
RunJob endless_job() {
    RunJob j;
    j.cpu = true;
    j.path = "endless.py";
    j.source = "import tilelang\nimport tilelang.language as T\n\n@tilelang.jit(out_idx=[-1])\n"
               "def endless(N=256):\n    @T.prim_func\n    def main(A: T.Tensor((N,), \"float32\")):\n"
               "        with T.Kernel(1, threads=1) as bx:\n            for i in T.serial(1 << 40):\n"
               "                A[i % N] = A[i % N] + 1.0\n    return main\n";
    return j;
}

// Runs one job to the end through `s` and returns its results (and the finishing message).
std::vector<RunResult> run_job(RunService& s, const RunJob& j, QString* message = nullptr) {
    QSignalSpy results(&s, &RunService::result);
    QSignalSpy done(&s, &RunService::job_finished);
    s.start(j);
    if (!done.wait(60000) && done.isEmpty()) return {};
    if (message) *message = done.at(0).at(1).toString();
    std::vector<RunResult> out;
    for (const auto& args : results) out.push_back(args.at(0).value<RunResult>());
    return out;
}

QString cell(QAbstractItemModel* m, int col) { return m->index(0, col).data().toString(); }

}  // namespace

class TestCpuRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // A CPU run is a worker's `load` (to Tile IR) and `run`: checked against the sample's C++
    // reference, no GPU timings, and a kernel that computes something else is reported wrong.
    void runs_in_the_worker_and_checks_the_reference() {
        RunService s;
        s.set_command(TILEC_PATH, {"worker"});
        QString message;
        auto rs = run_job(s, cpu_job("vector_add.py", {{"N", "1000"}}), &message);
        QCOMPARE(s.workers_started(), 1);
        QVERIFY(s.worker_pid() > 0);  // the worker stays for the next job
        QCOMPARE(int(rs.size()), 1);
        QVERIFY2(rs[0].ok && rs[0].correct, qPrintable(rs[0].error));
        QVERIFY(rs[0].cpu);
        QVERIFY(rs[0].device.isEmpty());
        QCOMPARE(rs[0].rel_error, 0.0);
        QVERIFY(!rs[0].has_timing());
        QVERIFY2(rs[0].note.contains(QRegularExpression("^(interpreted 4 blocks|ran 4 blocks on the LLVM JIT) in ")) &&
                     rs[0].note.contains("checked `C` against the add reference"),
                 qPrintable(rs[0].note));
        QCOMPARE(message, QString("CPU run finished"));

        RunJob wrong = cpu_job("vector_add.py", {{"N", "1000"}});
        wrong.source.replace("A[idx] + B[idx]", "A[idx] - B[idx]");
        rs = run_job(s, wrong);
        QCOMPARE(int(rs.size()), 1);
        QVERIFY(rs[0].ok);
        QVERIFY(!rs[0].correct);
        QVERIFY(rs[0].rel_error > 0.1);
        QCOMPARE(s.workers_started(), 1);  // the same worker ran both
    }

    // The interpreter's T.print lines come back in `printed`; a failed T.device_assert fails
    // the run with its message.
    void keeps_printed_lines_and_assertions() {
        RunService s;
        s.set_command(TILEC_PATH, {"worker"});
        auto rs = run_job(s, cpu_job("debug_print.py", {{"M", "16"}, {"N", "32"}}));
        QCOMPARE(int(rs.size()), 1);
        QVERIFY2(rs[0].ok && rs[0].correct, qPrintable(rs[0].error));
        QStringList lines = rs[0].printed.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), 1 + 32 + 32);
        QCOMPARE(lines[0], QString("msg='first element of the tile' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=int value=0"));
        double a = lines[1].section("value=", 1).toDouble(), b = lines[33].section("value=", 1).toDouble();
        QVERIFY2(qAbs(b - 2 * a) < 1e-5, qPrintable(lines[1] + " / " + lines[33]));

        RunJob fire = cpu_job("debug_print.py", {{"M", "16"}, {"N", "32"}});
        fire.defines = {{"limit", "0"}};
        rs = run_job(s, fire);
        QCOMPARE(int(rs.size()), 1);
        QVERIFY(!rs[0].ok);
        QVERIFY(rs[0].cpu);
        QVERIFY2(rs[0].error.contains("input larger than limit"), qPrintable(rs[0].error));
    }

    // Progress reports the blocks interpreted; Cancel kills the worker within a second and the
    // next run starts a fresh one.
    void cancel_kills_a_long_run_within_a_second() {
        RunService s;
        s.set_command(TILEC_PATH, {"worker"});
        QSignalSpy progress(&s, &RunService::progress);
        QSignalSpy done(&s, &RunService::job_finished);
        s.start(endless_job());
        auto interpreting = [&] {
            for (const auto& p : progress)
                if (p.at(2).toString().contains("blocks interpreted")) return true;
            return false;
        };
        QVERIFY(QTest::qWaitFor(interpreting, 30000));
        QCOMPARE(done.count(), 0);
        const qint64 pid = s.worker_pid();
        QVERIFY(pid > 0);
        QElapsedTimer t;
        t.start();
        s.cancel();
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 1000);
        QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
        qInfo("    Cancel ended the CPU run in %lld ms", t.elapsed());
        QCOMPARE(done.at(0).at(1).toString(), QString("CPU run cancelled"));
        QCOMPARE(::kill(pid_t(pid), 0), -1);  // the process is gone, not left interpreting
        QVERIFY(!s.busy());
        auto rs = run_job(s, cpu_job("vector_add.py", {{"N", "1000"}}));
        QCOMPARE(int(rs.size()), 1);
        QVERIFY(rs[0].ok);
        QCOMPARE(s.workers_started(), 2);
    }

    // Over the budget: refused by the worker before allocating (no 9 GiB is touched, so it
    // answers at once), naming the total, the largest tensors, the budget and what to reduce.
    void refuses_a_run_over_the_memory_budget() {
        RunService s;
        s.set_command(TILEC_PATH, {"worker"});
        RunJob big = cpu_job("vector_add.py", {{"N", "268435456"}});
        big.memory_budget = qint64(64) << 20;
        big.memory_budget_from = "the test's budget";
        big.budget_note = "N=268435456 is the GPU size";
        QElapsedTimer t;
        t.start();
        QString message;
        auto rs = run_job(s, big, &message);
        QCOMPARE(int(rs.size()), 1);
        QVERIFY(!rs[0].ok);
        QCOMPARE(rs[0].error, QString("the run needs 9.0 GiB for its tensors (`A` float32[268435456] 3.0 GiB, `B` float32[268435456] "
                                      "3.0 GiB, `C` float32[268435456] 3.0 GiB), over the memory budget of 64.0 MiB (the test's "
                                      "budget); reduce `N` (now 268435456), or raise the budget; N=268435456 is the GPU size"));
        QVERIFY2(t.elapsed() < 20000, qPrintable(QString::number(t.elapsed())));
        QCOMPARE(message, "CPU run failed: " + rs[0].error);  // the refusal is the job's message
    }

    // In the window: Run on the CPU goes through the run service's worker and fills the same
    // Results row; a header whose cpu-args line does not set N keeps the GPU's N, which the
    // parameters note says and the budget refusal names; Ctrl+. cancels a long run.
    void window_runs_cpu_through_the_worker() {
        Settings::set_cpu_memory_budget_mib(1024);
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        w.activateWindow();  // Ctrl+. below is a window shortcut
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.findChild<ParametersPanel*>()->set_cpu(true);
        QSignalSpy compiled(w.compile_service(), &CompileService::finished);
        QString text = read_sample("vector_add.py");
        text.replace("# tileplay: cpu-args N=100000", "# tileplay: cpu-args block_N=128");
        w.set_text(text, TILEPLAY_SOURCE_DIR "/samples/vector_add.py");
        QTRY_VERIFY_WITH_TIMEOUT(!compiled.isEmpty() && !w.compile_service()->busy(), 60000);
        auto* note = w.findChild<QLabel*>("parameters_note");
        QVERIFY(note);
        // block_N comes from the cpu-args line; N, which it does not set, stays at the GPU's.
        QTRY_VERIFY2(note->text() == "Run on the CPU uses the header's CPU sizes for these: block_N=128. It keeps the GPU sizes "
                                     "for these, which the cpu-args line does not set: N=268435456",
                     qPrintable(note->text()));
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        w.findChild<QAction*>("action_run")->trigger();
        QVERIFY(done.wait(30000));
        QCOMPARE(w.run_service()->workers_started(), 1);
        auto* results = w.findChild<QTableView*>("results_table")->model();
        const QString error = cell(results, ResultsModel::Note);
        QVERIFY2(error.contains("the run needs 9.0 GiB for its tensors") && error.contains("over the memory budget of 1.0 GiB (the "
                                                                                             "playground's cpu_memory_budget_mib setting)") &&
                     error.contains("reduce `N` (now 268435456)") &&
                     error.contains("N=268435456: the header's GPU sizes, which its `# tileplay: cpu-args` line does not set"),
                 qPrintable(error));
        const QString status = w.findChild<QLabel*>("results_status")->text();
        QVERIFY2(status.contains(">CPU run failed: the run needs 9.0 GiB"), qPrintable(status));

        // Ctrl+. stops a run that would never end within a second.
        w.set_text(endless_job().source, "endless.py");
        QTRY_VERIFY_WITH_TIMEOUT(!w.compile_service()->busy(), 60000);
        done.clear();
        w.findChild<QAction*>("action_run")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<QLabel*>("results_status")->text().contains("blocks interpreted"), 30000);
        QElapsedTimer t;
        t.start();
        QTest::keyClick(&w, Qt::Key_Period, Qt::ControlModifier);
        QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 1000);
        QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
        qInfo("    Ctrl+. ended the CPU run in %lld ms", t.elapsed());
        QVERIFY(w.findChild<QLabel*>("results_status")->text().contains("CPU run cancelled"));
        Settings::set_cpu_memory_budget_mib(0);
    }

    // The worker is a child process that may die: killed mid-run, the run fails saying so,
    // the editor keeps the user's unsaved text, and the next run starts a fresh worker.
    void a_dying_worker_leaves_the_editor_alone() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.findChild<ParametersPanel*>()->set_cpu(true);
        w.set_text(endless_job().source, "endless.py");
        w.editor()->append("# unsaved words of the user\n");
        const QString typed = w.editor()->text();
        QTRY_VERIFY_WITH_TIMEOUT(!w.compile_service()->busy(), 60000);
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        QSignalSpy died(w.run_service(), &RunService::worker_died);
        w.findChild<QAction*>("action_run")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(w.findChild<QLabel*>("results_status")->text().contains("blocks interpreted"), 30000);
        QCOMPARE(::kill(pid_t(w.run_service()->worker_pid()), SIGKILL), 0);
        QVERIFY(done.wait(10000));
        QCOMPARE(died.count(), 1);
        QVERIFY2(died.at(0).at(0).toString().contains("the worker crashed"), qPrintable(died.at(0).at(0).toString()));
        QCOMPARE(w.editor()->text(), typed);
        QVERIFY(w.editor()->isModified());
        w.set_text(read_sample("vector_add.py"), TILEPLAY_SOURCE_DIR "/samples/vector_add.py");
        QTRY_VERIFY_WITH_TIMEOUT(!w.compile_service()->busy(), 60000);
        done.clear();
        w.findChild<QAction*>("action_run")->trigger();
        QVERIFY(done.wait(30000));
        QVERIFY2(done.at(0).at(0).toBool(), qPrintable(done.at(0).at(1).toString()));
        QCOMPARE(w.run_service()->workers_started(), 2);
        w.editor()->setModified(false);  // nothing to ask about on close
    }
};

QTEST_MAIN(TestCpuRuns)
#include "test_cpu_runs.moc"
