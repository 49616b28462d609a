// The playground as a new user finds it, end to end, in one window: start with no file, open
// each sample from the welcome page, change a parameter, make and fix an error, Run on the CPU
// (in the `tilec worker` child process), Cancel a long run (the worker is killed), Sweep
// (refused on the CPU, then through a fake GPU worker), Charts and their export, the light
// theme, and kill -9 with recovery. The test functions run in order
// and share the window, as a user's session would; each step checks the models behind the
// panels and that the window grabs as a real picture (not blank, not one colour). Set
// TILEPLAY_SCENARIO_SHOTS=DIR to keep each step's PNG there for a person to look at.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTableView>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <csignal>
#include <memory>
#include <set>

#include "charts/charts.h"
#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/parameters_model.h"
#include "models/problems_model.h"
#include "models/results_model.h"
#include "models/sweep_model.h"
#include "panels/charts/charts_panel.h"
#include "panels/parameters/parameters_panel.h"
#include "panels/welcome/welcome_panel.h"
#include "session/recovery_store.h"
#include "settings.h"
#include "tileplay/sample_header.h"
#include "tileplay/tune.h"

using namespace tpui;

namespace {

const char* kCrashEnv = "TILEPLAY_SCENARIO_CRASHING_SESSION";
const char* kCrashEdit = "# typed just before kill -9\n";

// The crashed session of the last step: the real window opens a file, takes an edit, autosaves
// (what its timer does) and is killed with SIGKILL: no destructors, no closeEvent.
int crashing_session(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    MainWindow w;
    w.open_file(qEnvironmentVariable("TILEPLAY_SCENARIO_PATH"));
    w.editor()->append(kCrashEdit);
    w.autosave();
    std::raise(SIGKILL);
    return 0;
}

// Answers the next message box with `button` once it is up; records what it said.
void answer_next_box(QMessageBox::StandardButton button, QString* text = nullptr) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, timer, [timer, button, text] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box || !box->button(button)) return;
        timer->stop();
        timer->deleteLater();
        if (text) *text = box->text();
        box->button(button)->click();
    });
    timer->start();
}

// Colours in a small copy of the image: a blank or unpainted grab has one or two.
int distinct_colours(const QImage& image) {
    QImage small = image.scaled(120, 75, Qt::IgnoreAspectRatio, Qt::FastTransformation).convertToFormat(QImage::Format_RGB32);
    std::set<QRgb> colours;
    for (int y = 0; y < small.height(); ++y)
        for (int x = 0; x < small.width(); ++x) colours.insert(small.pixel(x, y));
    return int(colours.size());
}

double mean_lightness(const QImage& image) {
    QImage small = image.scaled(80, 60).convertToFormat(QImage::Format_RGB32);
    double sum = 0;
    for (int y = 0; y < small.height(); ++y)
        for (int x = 0; x < small.width(); ++x) sum += QColor(small.pixel(x, y)).lightnessF();
    return sum / (small.width() * small.height());
}

QAction* action_named(QWidget& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

}  // namespace

class TestScenario : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;  // copies of the samples (a save never touches the repository) and exports
    std::unique_ptr<MainWindow> w_;
    int shots_ = 0;
    QElapsedTimer total_, step_;  // printed: the scenario must stay well inside ctest's timeout

    ParametersPanel* params() { return w_->findChild<ParametersPanel*>(); }
    ParametersModel* params_model() { return w_->findChild<ParametersModel*>(); }
    ProblemsModel* problems() { return w_->findChild<ProblemsModel*>(); }
    QString compile_status() { return w_->findChild<QLabel*>("compile_status")->text(); }
    QString results_status() { return w_->findChild<QLabel*>("results_status")->text(); }
    QAbstractItemModel* results() { return w_->findChild<QTableView*>("results_table")->model(); }
    QString sample(const QString& name) { return dir_.filePath("samples/" + name); }

    // Grabs the window as it is painted now; it must be a picture, not a blank rectangle.
    void check_shot(const QString& step, QWidget* widget = nullptr) {
        QWidget* target = widget ? widget : w_.get();
        QTest::qWait(30);  // let queued paints and layouts happen
        QImage image = target->grab().toImage();
        QVERIFY2(!image.isNull(), qPrintable(step));
        QCOMPARE(image.size(), target->size() * target->devicePixelRatio());
        const int colours = distinct_colours(image);
        QVERIFY2(colours >= 12, qPrintable(QString("%1: %2 colours").arg(step).arg(colours)));
        const QString out = qEnvironmentVariable("TILEPLAY_SCENARIO_SHOTS");
        if (!out.isEmpty()) {
            QDir().mkpath(out);
            QVERIFY(image.save(QString("%1/%2-%3.png").arg(out).arg(++shots_, 2, 10, QChar('0')).arg(step)));
        }
    }

    // The welcome page (View > Welcome page), the sample's entry chosen with the keyboard, and
    // the first compile of that file with its own kernel and parameters.
    void open_from_welcome(const QString& file_name) {
        // Unsaved text would bring up the save prompt, which waits for an answer forever here.
        QVERIFY2(!w_->editor()->isModified(), "an earlier step left unsaved text");
        action_named(*w_, "&Welcome page")->trigger();
        auto* welcome = w_->findChild<WelcomePanel*>();
        auto* stack = qobject_cast<QStackedWidget*>(welcome->parentWidget());
        QCOMPARE(stack->currentWidget(), static_cast<QWidget*>(welcome));
        auto* list = welcome->findChild<QListWidget*>("welcome_samples");  // the samples (recent files come second)
        int row = -1;
        for (int i = 0; i < list->count(); ++i)
            if (list->item(i)->data(Qt::UserRole).toString().endsWith("/" + file_name)) row = i;
        QVERIFY2(row >= 0, qPrintable(file_name));
        list->setCurrentRow(row);
        QTest::keyClick(list, Qt::Key_Return);
        QVERIFY(stack->currentWidget() != welcome);
        QVERIFY(w_->windowTitle().startsWith(file_name));
        wait_compiled(file_name);
        QVERIFY2(!w_->statusBar()->currentMessage().startsWith("Open a sample"), qPrintable(w_->statusBar()->currentMessage()));
    }

    // Waits until the file's own kernel is compiled, without errors, with the header's values.
    void wait_compiled(const QString& what) {
        const tp::SampleHeader header = tp::parse_sample_header(w_->editor()->text().toStdString());
        const QString kernel = QString::fromStdString(header.kernel);
        QTRY_VERIFY2_WITH_TIMEOUT(!w_->compile_service()->busy() && compile_status().startsWith("compiled ") &&
                                      params()->kernel() == kernel,
                                  qPrintable(what + ": " + compile_status() + " / kernel " + params()->kernel()), 30000);
        QCOMPARE(problems()->error_count(), 0);
        // Nothing carried over from the file before: every value is what this file says.
        for (const auto& row : params_model()->rows()) {
            QVERIFY2(!row.overridden(), qPrintable(what + ": " + row.name + "=" + row.value));
            for (const auto& [k, v] : header.args)
                if (row.name == QString::fromStdString(k)) QCOMPARE(row.value, QString::fromStdString(v));
        }
    }

    QSpinBox* spin_box(const QString& param) {
        auto* reset = params()->findChild<QToolButton*>("param_reset_" + param);
        return reset ? reset->parentWidget()->findChild<QSpinBox*>() : nullptr;
    }

    // Types a value into a parameter's field, as a user does (select, type, Enter).
    void type_parameter(const QString& param, const QString& value) {
        QSpinBox* s = spin_box(param);
        QVERIFY2(s, qPrintable(param));
        s->selectAll();
        QTest::keyClicks(s, value);
        QTest::keyClick(s, Qt::Key_Return);
    }

private Q_SLOTS:
    void initTestCase() {
        total_.start();
        QStandardPaths::setTestModeEnabled(true);
        // A first start: no settings, recent files or autosaves of an earlier (killed) run.
        QSettings().clear();
        QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
        QVERIFY(dir_.isValid());
        QDir().mkpath(dir_.filePath("samples"));
        for (const QString& f : QDir(TILEPLAY_SOURCE_DIR "/samples").entryList({"*.py"}, QDir::Files))
            QVERIFY(QFile::copy(TILEPLAY_SOURCE_DIR "/samples/" + f, sample(f)));
        qputenv("TILEPLAY_SAMPLES", dir_.filePath("samples").toUtf8());
        w_ = std::make_unique<MainWindow>();
        w_->resize(1600, 1000);
        w_->show();
        QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    }

    void cleanupTestCase() {
        if (w_) w_->editor()->setModified(false);
        w_.reset();
        qInfo("scenario took %lld ms", total_.elapsed());
    }

    void init() { step_.start(); }
    void cleanup() { qInfo("  step took %lld ms", step_.elapsed()); }

    // The first screen: the welcome page, no error, Run on the CPU on a machine without a GPU
    // (and a note saying so), the GPU-only jobs off.
    void start_with_no_file() {
        auto* welcome = w_->findChild<WelcomePanel*>();
        QVERIFY(welcome->isVisible());
        QVERIFY(w_->editor()->text().isEmpty());
        QTest::qWait(100);
        QCOMPARE(problems()->rowCount(), 0);
        QVERIFY(!compile_status().contains("error"));
        QCOMPARE(welcome->findChild<QListWidget*>("welcome_samples")->count(), QDir(dir_.filePath("samples")).entryList({"*.py"}).size());
        if (params()->cpu()) QVERIFY2(results_status().contains("No CUDA device"), qPrintable(results_status()));
        check_shot("welcome");
    }

    // Every sample, in tutorial order, from the welcome page: each compiles its own kernel
    // with its own header values.
    void open_each_sample_from_welcome() {
        const QStringList samples = tutorial_samples(dir_.filePath("samples"));
        QVERIFY(samples.size() >= 8);
        for (const QString& path : samples) {
            const QString name = QFileInfo(path).fileName();
            QElapsedTimer t;
            t.start();
            open_from_welcome(name);
            if (QTest::currentTestFailed()) return;
            qInfo("    %s compiled in %lld ms", qPrintable(name), t.elapsed());
            check_shot("open-" + QFileInfo(path).baseName());
            if (QTest::currentTestFailed()) return;
        }
    }

    // vector_add's block_N typed into the panel: marked as an override, compiled with it.
    void change_a_parameter() {
        open_from_welcome("vector_add.py");
        QSignalSpy compiled(w_->compile_service(), &CompileService::finished);
        type_parameter("block_N", "128");
        QTRY_VERIFY_WITH_TIMEOUT(compiled.count() > 0 && !w_->compile_service()->busy(), 30000);
        auto r = compiled.last().at(0).value<CompileResultPtr>();
        QCOMPARE(QString::fromStdString(r->kernel.bound_params.at("block_N")), QString("128"));
        QVERIFY(!params()->findChild<QToolButton*>("param_reset_block_N")->isHidden());
        QVERIFY(params()->findChild<QLabel*>("param_label_block_N")->text().contains("<b>"));
        QTRY_VERIFY(compile_status().startsWith("compiled "));
        check_shot("parameter-changed");
    }

    // A typo in the editor shows up as a problem with a did-you-mean; fixing it clears it.
    void make_and_fix_an_error() {
        auto* e = w_->editor();
        const QString good = e->text();
        int line = -1, col = -1;
        const QStringList lines = good.split('\n');
        for (int i = 0; i < lines.size() && line < 0; ++i)
            if (!lines[i].trimmed().startsWith('#') && (col = int(lines[i].indexOf("T.Parallel("))) >= 0) line = i;
        QVERIFY(line >= 0);
        e->setFocus();
        e->setSelection(line, col, line, col + 10);
        QTest::keyClicks(e, "T.Paralel");
        QTRY_VERIFY2_WITH_TIMEOUT(problems()->error_count() > 0 && !w_->compile_service()->busy(),
                                  qPrintable(compile_status() + " | " + e->text(line)), 30000);
        QVERIFY2(compile_status().contains("error"), qPrintable(compile_status()));
        const QString message = problems()->index(0, 0).data().toString() + problems()->index(0, 1).data().toString() +
                                problems()->index(0, 2).data().toString() + problems()->index(0, 3).data().toString();
        QVERIFY2(message.contains("did you mean `T.Parallel`"), qPrintable(message));
        QVERIFY(w_->windowTitle().contains('*'));
        check_shot("error");
        if (QTest::currentTestFailed()) return;
        e->setSelection(line, col, line, col + 9);
        QTest::keyClicks(e, "T.Parallel");
        QCOMPARE(e->text(), good);
        QTRY_VERIFY_WITH_TIMEOUT(problems()->error_count() == 0 && compile_status().startsWith("compiled "), 30000);
        action_named(*w_, "&Save")->trigger();  // a copy of the sample: saving is harmless
        QVERIFY(!e->isModified());
        check_shot("error-fixed");
    }

    // Run on the CPU interpreter: one row, checked, no GPU numbers, with the typed block_N. It
    // runs in a `tilec worker` child process, as a GPU run does.
    void run_on_the_cpu() {
        params()->set_cpu(true);
        QTRY_VERIFY(!w_->compile_service()->busy());
        const int workers = w_->run_service()->workers_started();
        w_->findChild<QAction*>("action_run")->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(results_status().contains("CPU run finished"), 30000);
        QCOMPARE(w_->run_service()->workers_started(), workers + 1);
        QVERIFY(w_->run_service()->worker_pid() > 0);
        QCOMPARE(results()->rowCount(), 1);
        // Named by the engine that ran it (the LLVM JIT where built, else the interpreter).
        const QString name = results()->index(0, ResultsModel::Name).data().toString();
        QVERIFY2(name.contains("(CPU, LLVM JIT)") || name.contains("(CPU interpreter)"), qPrintable(name));
        QVERIFY2(results()->index(0, ResultsModel::Error).data().toString().contains("✓"),
                 qPrintable(results()->index(0, ResultsModel::Error).data().toString()));
        QCOMPARE(results()->index(0, ResultsModel::Latency).data().toString(), QString("n/a on CPU"));
        // The typed block_N ran: the header's CPU size N=100000 in blocks of 128.
        const QString note = results()->index(0, ResultsModel::Note).data().toString();
        // "interpreted N blocks", or "ran N blocks on the LLVM JIT" where libtileplay_jit is built.
        QVERIFY2(note.contains(QRegularExpression(QString("(interpreted|ran) %1 blocks").arg((100000 + 127) / 128))), qPrintable(note));
        QVERIFY(!w_->findChild<QDockWidget*>("dock_results")->visibleRegion().isEmpty());
        check_shot("cpu-run");
    }

    // gemm at 1024^3 in the interpreter takes far longer than the test: Cancel ends it within
    // a second and the window keeps answering events meanwhile.
    void cancel_a_long_run() {
        open_from_welcome("gemm.py");
        // Seconds even on the LLVM JIT (1024^3 now ends within half a second; 4096^3 in 0.8 s).
        for (const char* p : {"M", "N"}) params_model()->set_value(p, "4096");
        params_model()->set_value("K", "16384");
        QTRY_VERIFY_WITH_TIMEOUT(!w_->compile_service()->busy() && compile_status().startsWith("compiled "), 30000);
        auto* cancel = w_->findChild<QPushButton*>();
        for (auto* b : w_->findChildren<QPushButton*>())
            if (b->text() == "Cancel") cancel = b;
        QVERIFY(cancel && !cancel->isEnabled());
        w_->findChild<QAction*>("action_run")->trigger();
        QVERIFY(cancel->isEnabled());
        // Responsive: 20 timer ticks of 25 ms arrive in well under a second while it runs.
        QElapsedTimer ticks;
        ticks.start();
        for (int i = 0; i < 20; ++i) QTest::qWait(25);
        QVERIFY2(ticks.elapsed() < 1500, qPrintable(QString::number(ticks.elapsed())));
        QTRY_VERIFY2_WITH_TIMEOUT(results_status().contains("CPU run") && !results_status().contains("finished"), qPrintable(results_status()), 5000);
        check_shot("long-run");
        if (QTest::currentTestFailed()) return;
        const qint64 worker = w_->run_service()->worker_pid();
        QVERIFY(worker > 0);
        QElapsedTimer stop;
        stop.start();
        QTest::mouseClick(cancel, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(results_status().contains("cancelled"), 5000);
        qInfo("    cancelled in %lld ms", stop.elapsed());
        QVERIFY2(stop.elapsed() < 1000, qPrintable(QString::number(stop.elapsed())));
        QCOMPARE(::kill(pid_t(worker), 0), -1);  // the worker interpreting it is gone
        QVERIFY(!cancel->isEnabled());
        for (const char* p : {"M", "N", "K"}) params_model()->reset_value(p);
        check_shot("long-run-cancelled");
    }

    // Without a GPU, Benchmark and Tune are off and say why; a Sweep runs every configuration
    // of the file's space on the interpreter at the cpu-args sizes (the real worker) and
    // checks each, and the charts say that timings need a GPU. Through a GPU worker (a fake
    // one here) the sweep fills the table and the charts.
    void sweep() {
        params()->set_cpu(true);
        for (const char* name : {"action_bench", "action_tune"}) {
            QAction* a = w_->findChild<QAction*>(name);
            QVERIFY2(!a->isEnabled(), name);
            QVERIFY2(a->toolTip().contains("needs a GPU"), qPrintable(a->toolTip()));
        }
        QAction* sweep_action = w_->findChild<QAction*>("action_sweep");
        QVERIFY(sweep_action->isEnabled());
        open_from_welcome("gemm_autotune.py");
        const tp::SampleHeader header = tp::parse_sample_header(w_->editor()->text().toStdString());
        tp::TuneSpace space = tp::find_tune_space(sample("gemm_autotune.py").toStdString(), w_->editor()->text().toStdString(),
                                                  header.kernel, {}, header.args, params()->target().toStdString());
        QVERIFY(space.ok && space.configs.size() > 1);
        {
            QSignalSpy done(w_->run_service(), &RunService::job_finished);
            QElapsedTimer t;
            t.start();
            sweep_action->trigger();
            QVERIFY(QTest::qWaitFor([&] { return done.count() > 0; }, 120000));
            qInfo("    CPU sweep of %d configurations in %lld ms", int(space.configs.size()), t.elapsed());
            QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
            auto* model = w_->findChild<SweepModel*>();
            QCOMPARE(model->rowCount(), int(space.configs.size()));
            for (const auto& r : model->rows()) {
                QVERIFY2(r.cpu && r.ok && r.correct, qPrintable(r.config + ": " + r.error));
                QVERIFY2(r.wall_ms > 0, qPrintable(r.config));
            }
            QVERIFY(model->data(model->index(0, SweepModel::Latency)).toString().startsWith("CPU "));
            auto* latency = w_->findChild<BarChart*>("chart_latency");
            QVERIFY(latency->bars().empty());
            QVERIFY2(latency->note().contains("CPU sweep: " + QString::number(space.configs.size()) + " of"), qPrintable(latency->note()));
            QVERIFY(!w_->findChild<ChartsPanel*>()->export_png(dir_.filePath("cpu-sweep.png")));
            check_shot("cpu-sweep");
            if (QTest::currentTestFailed()) return;
            auto* charts = w_->findChild<QDockWidget*>("dock_charts");
            charts->raise();
            QTRY_VERIFY(!charts->visibleRegion().isEmpty());
            check_shot("cpu-sweep-charts");
            if (QTest::currentTestFailed()) return;
        }
        w_->run_service()->set_command(PYTHON3, {UI_TEST_DATA "/fake_worker.py"});
        params()->set_cpu(false);
        QVERIFY(w_->findChild<QAction*>("action_sweep")->isEnabled());
        QSignalSpy done(w_->run_service(), &RunService::job_finished);
        w_->findChild<QAction*>("action_sweep")->trigger();
        QVERIFY(QTest::qWaitFor([&] { return done.count() > 0; }, 60000));
        QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
        auto* sweep = w_->findChild<SweepModel*>();
        QCOMPARE(sweep->rowCount(), int(space.configs.size()));
        QCOMPARE(w_->findChild<QTableView*>("sweep_table")->model()->rowCount(), int(space.configs.size()));
        check_shot("sweep-done");
    }

    // The Charts dock: latency, TFLOP/s and the roofline, each exported as PNG and CSV.
    void charts_and_export() {
        auto* dock = w_->findChild<QDockWidget*>("dock_charts");
        dock->raise();
        QTRY_VERIFY(!dock->visibleRegion().isEmpty());
        auto* latency = w_->findChild<BarChart*>("chart_latency");
        QCOMPARE(int(latency->bars().size()), w_->findChild<SweepModel*>()->rowCount());
        auto* panel = w_->findChild<ChartsPanel*>();
        auto* tabs = panel->findChild<QTabWidget*>();
        QVERIFY(tabs && tabs->count() >= 3);
        for (int i = 0; i < tabs->count(); ++i) {
            tabs->setCurrentIndex(i);
            const QString tab = tabs->tabText(i).remove('&').replace('/', '-').replace(' ', '-').toLower();
            check_shot("chart-" + tab);
            if (QTest::currentTestFailed()) return;
            const QString png = dir_.filePath("chart-" + tab + ".png"), csv = dir_.filePath("chart-" + tab + ".csv");
            QVERIFY2(panel->export_png(png), qPrintable(tab));
            QImage exported(png);
            QVERIFY2(!exported.isNull() && distinct_colours(exported) >= 12, qPrintable(tab));
            QVERIFY2(panel->export_csv(csv), qPrintable(tab));
            QFile f(csv);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray text = f.readAll();
            QVERIFY2(text.count('\n') >= w_->findChild<SweepModel*>()->rowCount(), text.constData());
        }
        tabs->setCurrentIndex(0);
    }

    // The light theme: saved, and the editor and the window turn light.
    void theme() {
        const double dark = mean_lightness(w_->editor()->grab().toImage());
        w_->set_theme("light");
        QCOMPARE(Settings::theme(), QString("light"));
        QTest::qWait(50);
        const double light = mean_lightness(w_->editor()->grab().toImage());
        QVERIFY2(light > dark + 0.3, qPrintable(QString("%1 -> %2").arg(dark).arg(light)));
        check_shot("theme-light");
        if (QTest::currentTestFailed()) return;
        w_->set_theme("dark");
        QCOMPARE(Settings::theme(), QString("dark"));
        check_shot("theme-dark");
    }

    // A session killed with SIGKILL after an edit; the next start offers that text and restores
    // it as unsaved work in the file it belonged to.
    void kill_9_and_recover() {
        // This session ends cleanly first (no edits): it leaves nothing to recover.
        QVERIFY(!w_->editor()->isModified());
        QVERIFY(w_->close());
        w_.reset();
        QVERIFY(RecoveryStore().left_behind().empty());

        QProcess child;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(kCrashEnv, "1");
        env.insert("TILEPLAY_SCENARIO_PATH", sample("softmax.py"));
        child.setProcessEnvironment(env);
        child.start(QCoreApplication::applicationFilePath(), {});
        QVERIFY(child.waitForFinished(30000));
        QCOMPARE(child.exitStatus(), QProcess::CrashExit);

        w_ = std::make_unique<MainWindow>();
        w_->resize(1600, 1000);
        w_->show();
        QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
        QString asked;
        answer_next_box(QMessageBox::Yes, &asked);
        w_->offer_recovery();
        QVERIFY2(asked.contains("softmax.py"), qPrintable(asked));
        QVERIFY(w_->editor()->text().contains(kCrashEdit));
        QVERIFY(w_->editor()->isModified());
        QVERIFY(w_->windowTitle().startsWith("softmax.py*"));
        wait_compiled("recovered softmax.py");
        QVERIFY2(!w_->statusBar()->currentMessage().startsWith("Open a sample"), qPrintable(w_->statusBar()->currentMessage()));
        check_shot("recovered");
        answer_next_box(QMessageBox::Discard);
        QVERIFY(w_->close());
    }
};

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsSet(kCrashEnv)) return crashing_session(argc, argv);
    QApplication app(argc, argv);
    TestScenario t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_scenario.moc"
