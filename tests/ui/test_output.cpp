// The Output dock in the whole window: a CPU run of samples/debug_print.py shows the
// interpreter's T.print lines under a header naming the CPU and the kernel; a GPU run through
// tests/ui/data/fake_worker.py shows the GPU's lines labelled with the GPU, and after a trapped
// T.device_assert kills the worker, its message. A Run that prints brings the tab to the front
// without taking the editor's focus; a benchmark only counts the lines in the tab's title.
#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QtTest>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/parameters_model.h"
#include "panels/parameters/parameters_panel.h"
#include "settings.h"
#include "theme.h"

using namespace tpui;

namespace {

const QString kSample = TILEPLAY_SOURCE_DIR "/samples/debug_print.py";

QString read_sample() {
    QFile f(kSample);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing samples/debug_print.py");
    return QString::fromUtf8(f.readAll());
}

QString output_text(MainWindow& w) { return w.findChild<QPlainTextEdit*>("output_text")->toPlainText(); }
QDockWidget* dock(MainWindow& w, const char* name) { return w.findChild<QDockWidget*>(name); }
bool in_front(QDockWidget* d) { return d->isVisible() && !d->visibleRegion().isEmpty(); }

// Triggers an action and waits for the job's result row (CPU) or job_finished (GPU).
bool run(MainWindow& w, const char* action, bool gpu) {
    auto* results = w.findChild<QTableView*>("results_table");
    QSignalSpy resets(results->model(), &QAbstractItemModel::modelReset);
    QSignalSpy done(w.run_service(), &RunService::job_finished);
    w.findChild<QAction*>(action)->trigger();
    return QTest::qWaitFor([&] { return gpu ? !done.isEmpty() : !resets.isEmpty(); }, 60000);
}

// A test-only picture of the window, for a person to look at: TILEPLAY_TEST_SHOTS=DIR.
void shot(MainWindow& w, const QString& name) {
    QString dir = qEnvironmentVariable("TILEPLAY_TEST_SHOTS");
    if (!dir.isEmpty()) w.grab().save(dir + "/" + name + ".png");
}

}  // namespace

class TestOutput : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        Settings::set_window_state({});
        Settings::set_window_geometry({});
    }

    void cpu_run_shows_interpreter_lines() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        w.findChild<ParametersPanel*>()->set_cpu(true);
        QSignalSpy compiled(w.compile_service(), &CompileService::finished);
        w.set_text(read_sample(), kSample);
        // Once compiled, the panel shows the header's GPU size (M=N=1024); the CPU run must
        // still use the cpu-args.
        QTRY_VERIFY_WITH_TIMEOUT(!compiled.isEmpty(), 60000);
        auto* params = w.findChild<ParametersModel*>();
        QTRY_VERIFY(params->rowCount() > 0);
        QVERIFY(params->values_as_defines().front() == std::make_pair(std::string("M"), std::string("1024")));
        auto* out = dock(w, "dock_output");
        QVERIFY(out);
        QCOMPARE(out->windowTitle(), QString("Output"));
        auto* empty = w.findChild<QLabel*>("output_empty");
        QVERIFY(empty->isVisibleTo(out));  // before any run: where the output will appear
        QCOMPARE(empty->text(), QString("T.print output of the last run appears here"));

        w.editor()->setFocus();
        QTRY_VERIFY(w.editor()->hasFocus());
        QVERIFY(run(w, "action_run", false));
        // The sample's cpu-args (M=16 N=32): block (0, 0) prints the scalar and both 4x8 tiles.
        QTRY_VERIFY_WITH_TIMEOUT(!output_text(w).isEmpty(), 10000);
        QStringList lines = output_text(w).split('\n');
        QCOMPARE(lines.size(), 1 + 1 + 32 + 32);
        QVERIFY2(lines[0].startsWith("CPU interpreter · scale_tile · ") && lines[0].contains("M=16 N=32"), qPrintable(lines[0]));
        QCOMPARE(params->values_as_defines().front().second, std::string("1024"));  // the panel is left as it was
        QCOMPARE(lines[1], QString("msg='first element of the tile' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=int value=0"));
        QVERIFY(lines[2].startsWith("msg='A tile in shared memory' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): buffer=A_shared, index=0"));
        QVERIFY(lines[65].startsWith("msg='scaled tile in registers' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): buffer=B_frag, index=31"));
        QCOMPARE(out->windowTitle(), QString("Output (65)"));
        QCOMPARE(w.findChild<QLabel*>("output_summary")->text(), QString("65 lines printed by the last run"));
        // The tab came to the front; the editor kept the keyboard.
        QTRY_VERIFY(in_front(out));
        QVERIFY(!in_front(dock(w, "dock_results")));
        QVERIFY(w.editor()->hasFocus());
        auto* view = w.findChild<QPlainTextEdit*>("output_text");
        QVERIFY(view->isReadOnly());
        QVERIFY(QFontInfo(view->font()).fixedPitch());
        shot(w, "output_cpu_dark");

        // The header follows the theme.
        auto header_colour = [view] { return view->document()->firstBlock().begin().fragment().charFormat().foreground().color(); };
        QCOMPARE(header_colour(), dark_theme().builtin);
        w.set_theme("light");
        QCOMPARE(header_colour(), light_theme().builtin);
        QCOMPARE(output_text(w).split('\n').size(), 66);
        QTest::qWait(100);
        shot(w, "output_cpu_light");
        w.set_theme("dark");

        // Clear: back to the empty state and a plain title.
        w.findChild<QPushButton*>("output_clear")->click();
        QVERIFY(output_text(w).isEmpty());
        QVERIFY(empty->isVisible());
        QCOMPARE(out->windowTitle(), QString("Output"));

        // A size the user typed is used as typed.
        params->set_value("N", "8");
        QVERIFY(run(w, "action_run", false));
        QTRY_VERIFY_WITH_TIMEOUT(output_text(w).startsWith("CPU interpreter · scale_tile · M=16 N=8"), 10000);

        // A failed assertion on the CPU: the run fails and Output says why.
        w.editor()->setText(read_sample().replace("limit=1000.0", "limit=0.0"));
        QVERIFY(run(w, "action_run", false));
        QTRY_VERIFY_WITH_TIMEOUT(output_text(w).contains("the run failed: "), 10000);
        QVERIFY2(output_text(w).contains("input larger than limit"), qPrintable(output_text(w)));
        w.editor()->setModified(false);
    }

    void gpu_run_shows_gpu_lines_and_the_assert() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.run_service()->set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        w.findChild<ParametersPanel*>()->set_cpu(false);
        w.set_text(read_sample(), kSample);
        auto* out = dock(w, "dock_output");
        QVERIFY(run(w, "action_run", true));
        QStringList lines = output_text(w).split('\n');
        QCOMPARE(lines.size(), 4);
        QCOMPARE(lines[0], QString("GPU: NVIDIA H200 · scale_tile · M=1024 N=1024"));
        QCOMPARE(lines[1], QString("msg='first element of the tile' BlockIdx=(0, 0, 0), ThreadIdx=(0, 0, 0): dtype=float value=0.500000"));
        QVERIFY(lines[3].startsWith("msg='scaled tile in registers'"));
        QCOMPARE(out->windowTitle(), QString("Output (3)"));
        QTRY_VERIFY(in_front(out));

        // A benchmark that prints counts its lines but leaves the timings in front.
        dock(w, "dock_problems")->raise();
        QVERIFY(run(w, "action_bench", true));
        QTRY_VERIFY(in_front(dock(w, "dock_results")));
        QCOMPARE(out->windowTitle(), QString("Output (3)"));
        QVERIFY(!in_front(out));

        // The kernel traps on a failed T.device_assert: the worker dies, a fresh one will take
        // the next run, and Output shows the assertion's message under the GPU's header.
        w.editor()->append("\n# fake-worker: assert=run\n");
        QSignalSpy died(w.run_service(), &RunService::worker_died);
        QVERIFY(run(w, "action_run", true));
        QCOMPARE(died.count(), 1);
        lines = output_text(w).split('\n');
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QString("GPU: NVIDIA H200 · scale_tile · M=1024 N=1024"));
        QCOMPARE(lines[1], QString("device assertion failed at line 29: input larger than limit block=(0,0,0) thread=(0,0,0)"));
        QVERIFY2(lines[2].startsWith("the run failed: CUDA_ERROR_LAUNCH_FAILED"), qPrintable(lines[2]));
        QTRY_VERIFY(in_front(out));
        shot(w, "output_gpu_assert");

        // A kernel that prints nothing leaves the panel empty: no stale lines from the last run.
        QFile gemm(TILEPLAY_SOURCE_DIR "/samples/gemm.py");
        QVERIFY(gemm.open(QIODevice::ReadOnly));
        w.set_text(QString::fromUtf8(gemm.readAll()), TILEPLAY_SOURCE_DIR "/samples/gemm.py");
        QVERIFY(run(w, "action_run", true));
        QVERIFY(output_text(w).isEmpty());
        QCOMPARE(out->windowTitle(), QString("Output"));
        QVERIFY(w.findChild<QLabel*>("output_empty")->isVisibleTo(out));
        w.editor()->setModified(false);
    }

    // `tileplay --screenshot OUT --run`: the picture is taken after the run, Output in front.
    void screenshot_after_run() {
        QTemporaryDir dir;
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.findChild<ParametersPanel*>()->set_cpu(true);
        QVERIFY(w.open_file(kSample));
        int calls = 0;
        bool saved = false;
        QString text_at_grab;
        w.take_screenshot_after_run(dir.filePath("shot.png"), [&](bool ok) {
            ++calls;
            saved = ok;
            text_at_grab = output_text(w);
        });
        QTRY_VERIFY_WITH_TIMEOUT(calls > 0, 60000);
        QVERIFY(saved);
        QCOMPARE(QImage(dir.filePath("shot.png")).size(), w.size());
        QVERIFY2(text_at_grab.startsWith("CPU interpreter · scale_tile · M=16 N=32\nmsg='first element of the tile'"),
                 qPrintable(text_at_grab.left(200)));
        QVERIFY(in_front(dock(w, "dock_output")));
        QTest::qWait(200);
        QCOMPARE(calls, 1);  // once, not again for a later compile or run
    }

    // The Output dock is tabbed with the other bottom docks, and the saved layout keeps it in
    // front when the user left it there.
    void layout_save_and_restore() {
        Settings::set_window_state({});
        {
            MainWindow w;
            w.resize(1400, 900);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QVERIFY(w.tabifiedDockWidgets(dock(w, "dock_output")).contains(dock(w, "dock_results")));
            QVERIFY(!in_front(dock(w, "dock_output")));  // Problems is the first start's front tab
            dock(w, "dock_output")->raise();
            QVERIFY(w.close());
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QTRY_VERIFY(in_front(dock(again, "dock_output")));
        QVERIFY(!in_front(dock(again, "dock_problems")));
        Settings::set_window_state({});
        Settings::set_window_geometry({});
    }

    // A layout saved before the Output dock existed still restores, and the new dock joins the
    // bottom tabs instead of vanishing or floating.
    void layout_saved_without_output() {
        {
            MainWindow w;
            w.resize(1400, 900);
            w.show();
            QVERIFY(QTest::qWaitForWindowExposed(&w));
            QDockWidget* out = dock(w, "dock_output");
            w.removeDockWidget(out);
            delete out;
            dock(w, "dock_results")->raise();
            Settings::set_window_state(w.saveState());
            w.editor()->setModified(false);
        }
        MainWindow again;
        again.show();
        QVERIFY(QTest::qWaitForWindowExposed(&again));
        QTRY_VERIFY(in_front(dock(again, "dock_results")));  // the saved front tab
        QDockWidget* out = dock(again, "dock_output");
        QVERIFY(!out->isFloating());
        QCOMPARE(again.dockWidgetArea(out), Qt::BottomDockWidgetArea);
        QVERIFY(again.tabifiedDockWidgets(out).contains(dock(again, "dock_results")));
        out->raise();
        QTRY_VERIFY(in_front(out));
        Settings::set_window_state({});
        Settings::set_window_geometry({});
    }
};

QTEST_MAIN(TestOutput)
#include "test_output.moc"
