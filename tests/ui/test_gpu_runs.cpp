// The whole window against a GPU worker, on a machine without one: tests/ui/data/
// fake_worker.py speaks `tilec worker`'s protocol with GPU-style answers. A benchmark fills
// the Results table with GPU timings, TFLOP/s, GB/s, the error and each baseline, labelled
// with the GPU; a CPU run shows none of that; a worker dying mid-run leaves a message, a fresh
// worker takes the next run and the editor's text is untouched. Sweep runs the file's own
// @autotune space, and a screenshot taken after a sweep shows its chart.
#include <algorithm>

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QScrollBar>
#include <QTableView>
#include <QDir>
#include <QSettings>
#include <QtTest>

#include "charts/charts.h"
#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/parameters_model.h"
#include "models/results_model.h"
#include "panels/parameters/parameters_panel.h"
#include "session/tune_service.h"
#include "tileplay/tune.h"

using namespace tpui;

namespace {

QString read_sample(const char* name) {
    QFile f(QStringLiteral(TILEPLAY_SOURCE_DIR "/samples/") + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("missing sample %s", name);
    return QString::fromUtf8(f.readAll());
}

// What the Results table shows in one cell.
QString shown(MainWindow& w, int row, int col) {
    auto* table = w.findChild<QTableView*>("results_table");
    return table->model()->index(row, col).data().toString();
}

QString status_text(MainWindow& w) { return w.findChild<QLabel*>("results_status")->text(); }

// Triggers a Run/Benchmark action and waits for its job to end (GPU or CPU).
bool run_action(MainWindow& w, const char* action, QSignalSpy& finished_rows, int timeout_ms = 30000) {
    int before = finished_rows.count();
    w.findChild<QAction*>(action)->trigger();
    return QTest::qWaitFor([&] { return finished_rows.count() > before; }, timeout_ms);
}

}  // namespace

class TestGpuRuns : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() {
        QStandardPaths::setTestModeEnabled(true);
        // Each run starts as a first start: the settings and autosaves an earlier (perhaps
        // killed) run left behind must not pick this one's target, device or a recovery prompt.
        QSettings().clear();
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
    }

    void bench_on_gpu_then_run_on_cpu() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.run_service()->set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        auto* params = w.findChild<ParametersPanel*>();
        params->set_cpu(false);
        w.set_text(read_sample("gemm.py"), TILEPLAY_SOURCE_DIR "/samples/gemm.py");
        auto* results = w.findChild<QTableView*>("results_table");
        QSignalSpy resets(results->model(), &QAbstractItemModel::modelReset);
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        QVERIFY(run_action(w, "action_bench", done));
        QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
        QVERIFY(status_text(w).contains("Benchmark finished on NVIDIA H200"));

        // gemm.py's header: args M=N=K=4096, flops 2*M*N*K, bytes 2*(M*K + K*N + M*N),
        // baselines cublas.gemm, cublaslt.gemm and torch: A @ B.
        QCOMPARE(results->model()->rowCount(), 4);
        QCOMPARE(shown(w, 0, ResultsModel::Name), QString("matmul (GPU: NVIDIA H200)"));
        QString latency = shown(w, 0, ResultsModel::Latency);
        QVERIFY(latency.endsWith(" ms") || latency.endsWith(" µs"));
        double ms = latency.section(' ', 0, 0).toDouble() * (latency.endsWith("µs") ? 1e-3 : 1);
        double tflops = shown(w, 0, ResultsModel::Tflops).toDouble();
        double gbps = shown(w, 0, ResultsModel::Gbps).toDouble();
        // The shown TFLOP/s and GB/s are the header's FLOPs and bytes over the shown latency.
        QVERIFY(qAbs(tflops - 2.0 * 4096 * 4096 * 4096 / (ms * 1e-3) / 1e12) < 0.01 * tflops);
        QVERIFY(qAbs(gbps - 2.0 * 3 * 4096 * 4096 / (ms * 1e-3) / 1e9) < 0.01 * gbps);
        QVERIFY(shown(w, 0, ResultsModel::Error).contains("✓"));
        QCOMPARE(shown(w, 1, ResultsModel::Name), QString("cublas.gemm (GPU)"));
        QCOMPARE(shown(w, 2, ResultsModel::Name), QString("cublaslt.gemm (GPU)"));
        QCOMPARE(shown(w, 3, ResultsModel::Name), QString("torch: A @ B (GPU)"));
        for (int row : {1, 2, 3}) {
            QVERIFY(shown(w, row, ResultsModel::Latency).contains("s"));
            QVERIFY(shown(w, row, ResultsModel::Tflops).toDouble() > 0);
        }
        // Ours and every baseline are on screen, with no scrolling; no empty sweep table.
        QTRY_COMPARE(results->verticalScrollBar()->maximum(), 0);
        QVERIFY(results->isVisible());
        QVERIFY(!w.findChild<QTableView*>("sweep_table")->isVisible());

        // The same window on the CPU: the interpreter's check, no GPU numbers, no baselines. CPU
        // runs go through the worker too: the real one, which interprets the kernel.
        w.run_service()->set_command(TILEC_PATH, {"worker"});
        params->set_cpu(true);
        w.set_text(read_sample("vector_add.py"), TILEPLAY_SOURCE_DIR "/samples/vector_add.py");
        // The new file compiles on its own: no kernel name or parameter of gemm.py goes with it
        // (before, a compile raced the picker and built `matmul` with gemm's block sizes).
        QTRY_VERIFY2_WITH_TIMEOUT(w.findChild<QLabel*>("compile_status")->text().contains("compiled vector_add"),
                                  qPrintable(w.findChild<QLabel*>("compile_status")->text()), 20000);
        // Nothing of gemm.py carried over: its kernel name and its M, N, K, block sizes.
        QCOMPARE(params->kernel(), QString("vector_add"));
        int before = resets.count();
        w.findChild<QAction*>("action_run")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(resets.count() > before && results->model()->rowCount() > 0, 60000);
        QCOMPARE(results->model()->rowCount(), 1);
        // Named by the engine that ran it: the LLVM JIT where it is built, else the interpreter.
        QVERIFY2(shown(w, 0, ResultsModel::Name).contains("(CPU"), qPrintable(shown(w, 0, ResultsModel::Name)));
        QVERIFY(!shown(w, 0, ResultsModel::Name).contains("GPU"));
        QCOMPARE(shown(w, 0, ResultsModel::Latency), QString("n/a on CPU"));
        QVERIFY(shown(w, 0, ResultsModel::Tflops).isEmpty());
        QVERIFY(shown(w, 0, ResultsModel::Gbps).isEmpty());
        QVERIFY2(shown(w, 0, ResultsModel::Note).contains("no GPU timings"), qPrintable(shown(w, 0, ResultsModel::Note)));
        w.editor()->setModified(false);
    }

    // Sweep runs the file's own @autotune space (what `tilec tune` uses) on the GPU worker:
    // one row per config in the sweep table and one bar per config in the latency chart.
    void sweep_runs_the_autotune_space() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.run_service()->set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        w.findChild<ParametersPanel*>()->set_cpu(false);
        QString path = TILEPLAY_SOURCE_DIR "/samples/gemm_autotune.py";
        QString source = read_sample("gemm_autotune.py");
        w.set_text(source, path);
        tp::TuneSpace space = tp::find_tune_space(path.toStdString(), source.toStdString(), "matmul", {},
                                                  {{"M", "4096"}, {"N", "4096"}, {"K", "4096"}}, "sm_90");
        QVERIFY(space.ok);
        QVERIFY(space.configs.size() > 1);
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        QAction* sweep = nullptr;
        for (QAction* a : w.actions())
            if (a->text() == "&Sweep") sweep = a;
        QVERIFY(sweep);
        std::vector<int> checked;  // blocks the interpreter compared, per config
        connect(w.run_service(), &RunService::result, this, [&](const RunResult& r) { checked.push_back(r.blocks_checked); });
        int before = done.count();
        sweep->trigger();
        QVERIFY(QTest::qWaitFor([&] { return done.count() > before; }, 120000));
        // Each config is checked on 8 sampled blocks, not the worker's 64 (a sweep of the
        // 4096^3 GEMM's 64 configs would spend minutes in the interpreter).
        QCOMPARE(checked.size(), space.configs.size());
        QVERIFY(std::all_of(checked.begin(), checked.end(), [](int b) { return b == 8; }));
        QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
        auto* table = w.findChild<QTableView*>("sweep_table");
        QCOMPARE(table->model()->rowCount(), int(space.configs.size()));
        QVERIFY(table->isVisible());
        QCOMPARE(table->model()->index(0, 0).data().toString().count('='), int(space.configs.front().size()));
        auto* latency = w.findChildren<BarChart*>().value(0);
        QVERIFY(latency);
        QCOMPARE(latency->bars().size(), space.configs.size());
        w.editor()->setModified(false);
    }

    // `tileplay --screenshot OUT --job sweep`: the picture is taken once the whole sweep has
    // ended, with the Charts dock (the configs' latency bars) in front.
    void screenshot_after_sweep() {
        QTemporaryDir dir;
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.run_service()->set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        w.findChild<ParametersPanel*>()->set_cpu(false);
        QVERIFY(w.open_file(TILEPLAY_SOURCE_DIR "/samples/gemm_autotune.py"));
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        int calls = 0;
        bool saved = false;
        int bars_at_grab = -1;
        w.take_screenshot_after_job(dir.filePath("shot.png"), RunJob::Kind::Sweep, [&](bool ok) {
            ++calls;
            saved = ok;
            auto* latency = w.findChild<BarChart*>("chart_latency");
            bars_at_grab = latency ? int(latency->bars().size()) : -1;
        });
        QTRY_VERIFY_WITH_TIMEOUT(calls > 0, 120000);
        QVERIFY(saved);
        QCOMPARE(done.count(), 1);  // taken after the sweep, not after the compile
        QVERIFY(bars_at_grab > 1);
        QCOMPARE(QImage(dir.filePath("shot.png")).size(), w.size());
        auto* charts = w.findChild<QDockWidget*>("dock_charts");
        QVERIFY(charts && charts->isVisible() && !charts->visibleRegion().isEmpty());
        w.editor()->setModified(false);
    }

    // Tune is the autotuner (tp::run_tune, as `tilec tune`): every config of the file's space
    // compiled in parallel, timed on the (fake) GPU and checked, ranked into the sweep table,
    // the best one into the parameters; a second Tune is answered from the cache.
    void tune_runs_the_autotuner() {
        QTemporaryDir cache;
        qputenv("TILEPLAY_CACHE_DIR", cache.path().toUtf8());
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.run_service()->set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        w.tune_service()->set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        w.findChild<ParametersPanel*>()->set_cpu(false);
        QVERIFY(w.open_file(UI_TEST_DATA "/tune_small.py"));
        QAction* tune = nullptr;
        for (QAction* a : w.actions())
            if (a->text() == "&Tune") tune = a;
        QVERIFY(tune);
        QSignalSpy done(w.tune_service(), &TuneService::finished);
        tune->trigger();
        QVERIFY(QTest::qWaitFor([&] { return done.count() == 1; }, 120000));
        QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
        QVERIFY2(done.last().at(1).toString().contains("best of 4 configs"), qPrintable(done.last().at(1).toString()));
        const auto& rows = w.tune_service()->last_rows();
        QCOMPARE(rows.size(), size_t(4));
        QVERIFY(std::all_of(rows.begin(), rows.end(), [](const RunResult& r) { return r.correct && r.median_ms > 0; }));
        QVERIFY(rows.front().median_ms <= rows.back().median_ms);  // ranked, fastest first
        QCOMPARE(w.findChild<QTableView*>("sweep_table")->model()->rowCount(), 4);
        // The best config's parameters are now the panel's.
        QString best_m;
        for (const auto& [k, v] : w.tune_service()->last_best())
            if (k == "block_M") best_m = QString::fromStdString(v);
        QVERIFY(!best_m.isEmpty());
        QString shown_m;
        for (const auto& row : w.findChild<ParametersModel*>()->rows())
            if (row.name == "block_M") shown_m = row.value;
        QCOMPARE(shown_m, best_m);

        tune->trigger();
        QVERIFY(QTest::qWaitFor([&] { return done.count() == 2; }, 60000));
        QVERIFY2(done.last().at(1).toString().contains("from the cache"), qPrintable(done.last().at(1).toString()));
        qunsetenv("TILEPLAY_CACHE_DIR");
        w.editor()->setModified(false);
    }

    void worker_dies_mid_run() {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        w.run_service()->set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        w.findChild<ParametersPanel*>()->set_cpu(false);
        // The directive makes the fake worker's kernel hit an illegal address on `run`.
        w.set_text(read_sample("gemm.py"), QString());
        w.editor()->append("\n# fake-worker: die=run\n");  // unsaved work that must survive the crash
        QString text = w.editor()->text();
        QVERIFY(w.editor()->isModified());
        QSignalSpy died(w.run_service(), &RunService::worker_died);
        QSignalSpy done(w.run_service(), &RunService::job_finished);
        QVERIFY(run_action(w, "action_run", done));
        QCOMPARE(died.count(), 1);
        QCOMPARE(done.last().at(0).toBool(), false);
        QString status = status_text(w);
        QVERIFY2(status.contains("illegal memory access") && status.contains("a fresh worker takes over"), qPrintable(status));
        QVERIFY(shown(w, 0, ResultsModel::Note).contains("illegal memory access"));
        QCOMPARE(w.editor()->text(), text);
        QVERIFY(w.editor()->isModified());
        QVERIFY(w.isVisible());

        // The next run goes to a fresh worker and succeeds.
        w.editor()->setText(read_sample("gemm.py"));
        QVERIFY(run_action(w, "action_run", done));
        QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
        QCOMPARE(w.run_service()->workers_started(), 2);
        QVERIFY(shown(w, 0, ResultsModel::Note).contains("one launch took"));
        QVERIFY(shown(w, 0, ResultsModel::Error).contains("✓"));
        w.editor()->setModified(false);
    }
};

QTEST_MAIN(TestGpuRuns)
#include "test_gpu_runs.moc"
