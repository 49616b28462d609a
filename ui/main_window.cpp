// MainWindow construction: central splitter, docks, menus and shortcuts, themes.
#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <Qsci/qsciscintilla.h>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QVBoxLayout>
#include <algorithm>

#include "editor/dsl_editor.h"
#include "editor/find_bar.h"
#include "models/lesson_state.h"
#include "models/output_log.h"
#include "models/parameters_model.h"
#include "models/problems_model.h"
#include "models/results_model.h"
#include "models/sweep_model.h"
#include "panels/charts/charts_panel.h"
#include "panels/compare/compare_panel.h"
#include "panels/lesson/lesson_banner.h"
#include "session/tune_service.h"
#include "panels/code_views/code_views_panel.h"
#include "panels/output/output_panel.h"
#include "panels/parameters/parameters_panel.h"
#include "panels/layout/layout_panel.h"
#include "panels/pipeline/pipeline_panel.h"
#include "panels/problems/problems_panel.h"
#include "panels/results/results_panel.h"
#include "panels/shortcuts/shortcuts_dialog.h"
#include "panels/welcome/welcome_panel.h"
#include "tileplay/doctor.h"
#include "tileplay/warm_up.h"
#include "settings.h"
#include "theme.h"

namespace tpui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
    setObjectName("main_window");
    params_model_ = new ParametersModel(this);
    problems_model_ = new ProblemsModel(this);
    results_model_ = new ResultsModel(this);
    sweep_model_ = new SweepModel(this);
    output_log_ = new OutputLog(this);
    lesson_ = new LessonState(this);
    compile_ = new CompileService({}, this);
    compile_->set_delay_ms(Settings::compile_delay_ms());
    runs_ = new RunService(this);
    tune_ = new TuneService(this);
    // Run and Tune start the same tilec: the configured one, else the one beside this build
    // (RunService::default_tilec; the core's lookup from a bare path missed the build tree).
    const QString tilec = Settings::tilec_path().isEmpty() ? RunService::default_tilec() : Settings::tilec_path();
    runs_->set_command(tilec, {"worker"});
    tune_->set_command(tilec, {"worker"});

    editor_ = new DslEditor;
    find_ = new FindBar(editor_);
    auto* editor_box = new QWidget;
    auto* el = new QVBoxLayout(editor_box);
    el->setContentsMargins(0, 0, 0, 0);
    el->setSpacing(0);
    lesson_banner_ = new LessonBanner(lesson_);
    el->addWidget(lesson_banner_);
    el->addWidget(editor_, 1);
    el->addWidget(find_);
    welcome_ = new WelcomePanel;
    welcome_->setFocusPolicy(Qt::StrongFocus);
    left_ = new QStackedWidget;
    left_->addWidget(welcome_);
    left_->addWidget(editor_box);
    // The welcome page takes the keyboard while it covers the editor: keys typed there must
    // not land in a hidden file (and be autosaved).
    connect(left_, &QStackedWidget::currentChanged, this, [this](int index) {
        if (left_->widget(index) == welcome_) welcome_->setFocus();
        else editor_->setFocus();
    });
    views_ = new CodeViewsPanel;
    split_ = new QSplitter(Qt::Horizontal);
    split_->setObjectName("central_splitter");
    split_->addWidget(left_);
    split_->addWidget(views_);
    split_->setStretchFactor(0, 5);
    split_->setStretchFactor(1, 6);
    setCentralWidget(split_);

    build_docks();
    build_actions();

    status_state_ = new QLabel;
    status_state_->setObjectName("compile_status");
    status_timings_ = new QLabel;
    statusBar()->addWidget(status_state_, 1);
    statusBar()->addPermanentWidget(status_timings_);
    std::string why;
    local_gpu_ = tp::cuda_device_present(&why);
    no_gpu_why_ = QString::fromStdString(why);
    build_workers();

    connect(editor_, &QsciScintilla::textChanged, this, [this] {
        update_title();
        request_compile(false);
    });
    connect(editor_, &QsciScintilla::modificationChanged, this, [this](bool) { update_title(); });
    connect(editor_, &DslEditor::caret_line_changed, this, [this](int line) {
        views_->highlight_dsl_line(line, LinkedView::Dsl);
    });
    connect(views_, &CodeViewsPanel::dsl_line_selected, this, [this](int dsl) {
        editor_->set_linked_lines(dsl > 0 ? std::vector<int>{dsl} : std::vector<int>{});
    });
    connect(welcome_, &WelcomePanel::open_file, this, [this](const QString& p) {
        if (maybe_save()) open_file(p);
    });
    connect(compile_, &CompileService::finished, this, &MainWindow::on_compiled);
    connect(compile_, &CompileService::started, this, [this] { status_state_->setText(tr("compiling…")); });

    recovery_ = std::make_unique<RecoveryStore>();
    autosave_timer_ = new QTimer(this);
    autosave_timer_->setInterval(std::max(1, Settings::autosave_seconds()) * 1000);
    connect(autosave_timer_, &QTimer::timeout, this, &MainWindow::autosave);
    autosave_timer_->start();

    resize(1600, 1000);
    restoreGeometry(Settings::window_geometry());
    docks_restored_ = restoreState(Settings::window_state());
    // Read both first: setting one emits settings_changed, which saves both from the panel.
    const QString target = Settings::target(), device = Settings::device();
    params_->set_target(target);
    if (device == "auto" || !params_->set_run_on(device)) {
        // Nothing chosen yet (or a remote worker since removed): the GPU where there is one;
        // else the CPU, and say why, rather than a first Run that fails to find a device.
        params_->set_cpu(!local_gpu_);
        Settings::set_device(device == "auto" ? "auto" : params_->run_on());  // keep deciding at each start
        if (!local_gpu_)
            no_gpu_note_ = tr("No CUDA device on this machine (%1): Run uses the CPU interpreter at the sample's CPU sizes. "
                              "Sweep checks each configuration there; Benchmark and Tune need a GPU (or a remote "
                              "worker: Run on > Add remote worker…).")
                               .arg(no_gpu_why_);
    }
    check_chosen_worker();
    set_theme(Settings::theme());
    update_title();
    // The first compile in a process pays 60 to 80 ms of start-up (page faults, NVRTC's
    // initialisation); a throw-away compile at launch pays it before the user's first one. Once
    // per process: a second window would gain nothing.
    static bool warmed = false;
    if (!warmed && Settings::warm_up_compiler()) {
        warmed = true;
        compile_->warm_up([t = target.toStdString()] { tp::warm_up(t); });
    }
}

MainWindow::~MainWindow() = default;

void MainWindow::build_docks() {
    params_ = new ParametersPanel(params_model_);
    problems_ = new ProblemsPanel(problems_model_);
    results_ = new ResultsPanel(results_model_, sweep_model_);
    charts_ = new ChartsPanel(sweep_model_);
    compare_ = new ComparePanel;
    layout_ = new LayoutPanel;
    pipeline_ = new PipelinePanel;
    output_ = new OutputPanel(output_log_);
    auto dock = [this](QWidget* w, const QString& title, const QString& name, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    dock(params_, tr("Parameters"), "dock_parameters", Qt::RightDockWidgetArea);
    QDockWidget* p = dock(problems_, tr("Problems"), "dock_problems", Qt::BottomDockWidgetArea);
    QDockWidget* r = dock(results_, tr("Results"), "dock_results", Qt::BottomDockWidgetArea);
    QDockWidget* c = dock(charts_, tr("Charts"), "dock_charts", Qt::BottomDockWidgetArea);
    QDockWidget* o = dock(output_, tr("Output"), "dock_output", Qt::BottomDockWidgetArea);
    QDockWidget* cmp = dock(compare_, tr("Compare"), "dock_compare", Qt::BottomDockWidgetArea);
    tabifyDockWidget(p, r);
    tabifyDockWidget(r, c);
    tabifyDockWidget(c, o);
    tabifyDockWidget(o, cmp);
    // The layout view is opened from View (or by its tests): hidden at first, it leaves the
    // bottom area's saved height to the docks the user sees.
    QDockWidget* lay = dock(layout_, tr("Layout"), "dock_layout", Qt::BottomDockWidgetArea);
    tabifyDockWidget(cmp, lay);
    lay->hide();
    connect(layout_, &LayoutPanel::go_to, this, [this](int line, int col) { editor_->go_to(line, col); });
    // The pipeline view likewise (View > Pipeline); it computes only while shown.
    QDockWidget* pipe = dock(pipeline_, tr("Pipeline"), "dock_pipeline", Qt::BottomDockWidgetArea);
    tabifyDockWidget(lay, pipe);
    pipe->hide();
    connect(pipeline_, &PipelinePanel::go_to, this, [this](int line, int col) { editor_->go_to(line, col); });
    connect(layout_, &LayoutPanel::margin_notes_changed, editor_, &DslEditor::set_margin_notes);
    connect(compare_, &ComparePanel::pin_requested, this, &MainWindow::pin_for_compare);
    p->raise();
    connect(output_log_, &OutputLog::changed, this, &MainWindow::update_output_title);

    connect(problems_, &ProblemsPanel::go_to, this, [this](int line, int col) { editor_->go_to(line, col); });
    connect(params_, &ParametersPanel::kernel_changed, this, [this] { request_compile(true); });
    connect(params_, &ParametersPanel::settings_changed, this, [this] {
        Settings::set_target(params_->target());
        Settings::set_device(params_->run_on());
        check_chosen_worker();
        update_where();
        update_job_actions();
        update_cpu_note();
        charts_->set_target(params_->target());
        request_compile(true);
    });
    // A bar clicked in Charts loads its configuration into the parameters (marked as overrides,
    // each resettable), and the kernel is compiled with it.
    connect(charts_, &ChartsPanel::configChosen, this, [this](const std::vector<std::pair<QString, QString>>& params, const QString& config) {
        for (const auto& [k, v] : params) params_model_->set_value(k, v);
        statusBar()->showMessage(tr("Loaded %1 from the chart").arg(config), 8000);
        request_compile(true);
    });
    connect(results_, &ResultsPanel::cancel_requested, runs_, &RunService::cancel);
    connect(results_, &ResultsPanel::cancel_requested, tune_, &TuneService::cancel);
    connect(tune_, &TuneService::progress, results_, &ResultsPanel::progress);
    connect(tune_, &TuneService::finished, this, [this](bool ok, const QString& message) {
        // The ranked configs fill the sweep table and charts; the best one the parameters.
        for (const auto& r : tune_->last_rows()) sweep_model_->add(r);
        if (tune_->last_peers()) sweep_model_->set_peers(*tune_->last_peers());
        for (const auto& [k, v] : tune_->last_best()) params_model_->set_value(QString::fromStdString(k), QString::fromStdString(v));
        results_->job_finished(ok, message);
        if (screenshot_after_job_) grab_screenshot();
    });
    connect(runs_, &RunService::job_started, this, [this](int total) {
        results_->job_started(runs_->job_name(), total);
    });
    connect(runs_, &RunService::progress, results_, &ResultsPanel::progress);
    connect(runs_, &RunService::result, this, &MainWindow::on_run_result);
    connect(runs_, &RunService::peers, sweep_model_, &SweepModel::set_peers);
    connect(runs_, &RunService::job_finished, results_, &ResultsPanel::job_finished);
    connect(runs_, &RunService::job_finished, this, &MainWindow::lesson_job_finished);
    connect(runs_, &RunService::job_finished, this, [this] {
        if (screenshot_after_job_) grab_screenshot();
    });
    connect(runs_, &RunService::worker_died, this, [this](const QString& why) {
        results_->worker_died(why);
        statusBar()->showMessage(why, 8000);
    });
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    // Sizes only mean something once the window has its size: after the first show's resize
    // events (and any resize() right after show(), as --screenshot does).
    if (!shown_once_) {
        shown_once_ = true;
        if (left_->currentWidget() == welcome_) welcome_->setFocus();
        if (!no_gpu_note_.isEmpty()) {
            results_->show_message(no_gpu_note_, false);
            statusBar()->showMessage(no_gpu_note_, 15000);
        }
        QTimer::singleShot(0, this, &MainWindow::apply_default_layout);
    }
}

void MainWindow::apply_default_layout() {
    if (layout()) layout()->activate();
    // Without a saved layout, the bottom docks (problems, results, charts) share a quarter of
    // the height and the editor and the generated code get the rest; otherwise the dock area
    // takes its widgets' size hints, the sweep table's tall one included.
    if (!docks_restored_) {
        if (auto* bottom = findChild<QDockWidget*>("dock_problems")) resizeDocks({bottom}, {height() / 4}, Qt::Vertical);
        if (auto* right = findChild<QDockWidget*>("dock_parameters"))
            resizeDocks({right}, {std::clamp(width() / 7, 200, 280)}, Qt::Horizontal);
    }
    // The splitter is not part of the saved layout. The editor is where the user works: at
    // least 100 columns of code (two fifths of the width when that is more), as long as the
    // code views keep 420 px; they stack CUDA above PTX when narrow (CodeViewsPanel).
    int w = split_->width();
    int editor = std::max(w * 2 / 5, std::min(editor_->width_for_columns(100), w - 420));
    split_->setSizes({editor, w - editor});
}

void MainWindow::build_actions() {
    auto act = [this](QMenu* m, const QString& text, const QKeySequence& key, auto fn) {
        auto* a = m->addAction(text);
        if (!key.isEmpty()) a->setShortcut(key);
        connect(a, &QAction::triggered, this, fn);
        addAction(a);
        return a;
    };
    QMenu* file = menuBar()->addMenu(tr("&File"));
    act(file, tr("&New"), QKeySequence::New, [this] { new_file(); });
    act(file, tr("&Open…"), QKeySequence::Open, [this] { open_dialog(); });
    recent_menu_ = file->addMenu(tr("Open &recent"));
    act(file, tr("&Save"), QKeySequence::Save, [this] { save(); });
    act(file, tr("Save &as…"), QKeySequence::SaveAs, [this] { save_as(); });
    file->addSeparator();
    act(file, tr("&Quit"), QKeySequence::Quit, [this] { close(); });

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    // The editor's own bindings already do these; the menu makes them findable (and works
    // from a code view, where Copy copies the view's selection).
    act(edit, tr("&Undo"), QKeySequence::Undo, [this] { editor_->undo(); });
    act(edit, tr("&Redo"), QKeySequence::Redo, [this] { editor_->redo(); });
    edit->addSeparator();
    act(edit, tr("Cu&t"), QKeySequence::Cut, [this] { editor_->cut(); });
    // Copy and Select all act on the focused code view when one has the focus, else the editor.
    auto focused_text = [this]() -> QsciScintilla* {
        auto* view = qobject_cast<QsciScintilla*>(QApplication::focusWidget());
        return view ? view : editor_;
    };
    act(edit, tr("&Copy"), QKeySequence::Copy, [focused_text] { focused_text()->copy(); });
    act(edit, tr("&Paste"), QKeySequence::Paste, [this] { editor_->paste(); });
    act(edit, tr("Select &all"), QKeySequence::SelectAll, [focused_text] { focused_text()->selectAll(); });
    edit->addSeparator();
    act(edit, tr("&Find"), QKeySequence::Find, [this] { find_->show_find(false); });
    act(edit, tr("Find and &replace"), QKeySequence(Qt::CTRL | Qt::Key_H), [this] { find_->show_find(true); });
    act(edit, tr("Find &next"), QKeySequence::FindNext, [this] { find_->find_next(true); });
    act(edit, tr("Find &previous"), QKeySequence::FindPrevious, [this] { find_->find_next(false); });
    act(edit, tr("Toggle &comment"), QKeySequence(Qt::CTRL | Qt::Key_Slash), [this] { editor_->toggle_comment(); });
    act(edit, tr("Go to next &problem"), QKeySequence(Qt::Key_F8), [this] {
        int here = editor_->caret_line();
        const auto& ps = editor_->problems();
        for (const auto& p : ps)
            if (p.line > here) return editor_->go_to(p.line, p.col);
        if (!ps.empty()) editor_->go_to(ps.front().line, ps.front().col);
    });

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    act(run, tr("&Run"), QKeySequence(Qt::CTRL | Qt::Key_Return), [this] { start_job(RunJob::Kind::Run); })
        ->setObjectName("action_run");
    act(run, tr("&Benchmark"), QKeySequence(Qt::CTRL | Qt::Key_B), [this] { start_job(RunJob::Kind::Bench); })
        ->setObjectName("action_bench");
    act(run, tr("&Sweep"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_S), [this] { start_job(RunJob::Kind::Sweep); })
        ->setObjectName("action_sweep");
    act(run, tr("&Tune"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_T), [this] { start_job(RunJob::Kind::Tune); })
        ->setObjectName("action_tune");
    act(run, tr("&Cancel"), QKeySequence(Qt::CTRL | Qt::Key_Period), [this] {
        runs_->cancel();
        tune_->cancel();
    });
    act(run, tr("Compile &now"), QKeySequence(Qt::Key_F5), [this] { request_compile(true); });
    add_check_races_action(run);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    act(view, tr("&Dark theme"), QKeySequence(), [this] { set_theme("dark"); });
    act(view, tr("&Light theme"), QKeySequence(), [this] { set_theme("light"); });
    view->addSeparator();
    act(view, tr("&Pin configuration for comparison"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P), [this] { pin_for_compare(); })
        ->setObjectName("action_pin");
    view->addSeparator();
    for (QDockWidget* d : findChildren<QDockWidget*>()) view->addAction(d->toggleViewAction());
    act(view, tr("&Welcome page"), QKeySequence(), [this] {
        welcome_->refresh();
        left_->setCurrentWidget(welcome_);
    });
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    act(help, tr("&Keyboard shortcuts"), QKeySequence(Qt::Key_F1), [this] { ShortcutsDialog(actions(), this).exec(); });
    act(help, tr("&About TilePlay"), QKeySequence(), [this] {
        QMessageBox::about(this, tr("About TilePlay"),
                           tr("<b>TilePlay %1</b><p>A playground for TileLang kernels: write them, see the CUDA, PTX and "
                              "SASS they become, run, check and tune them. Its own C++ compiler (no Python, no TVM); "
                              "Qt %2, QScintilla, Qt Charts and the CUDA toolkit.</p><p>The same work from a terminal: "
                              "<code>tilec --help</code>.</p>")
                               .arg(QStringLiteral(TILEPLAY_VERSION), QString::fromLatin1(qVersion())));
    });

    auto* tb = addToolBar(tr("Run"));
    tb->setObjectName("toolbar_run");
    for (QAction* a : run->actions())
        if (!a->text().contains("Compile")) tb->addAction(a);
    update_recent_menu();
    update_job_actions();
}

// Benchmark and Tune time kernels on the GPU: with Run on the CPU they are off, and say why
// where the user looks (their tooltip). A Sweep runs there too: each configuration on the
// interpreter at the cpu-args sizes, checked, which shows which schedules are right.
void MainWindow::update_job_actions() {
    update_check_races_action();
    const bool gpu = params_ && workers_ && !run_cpu();
    const QString spec = params_ && workers_ ? remote_spec() : QString();
    for (const char* name : {"action_bench", "action_tune"})
        if (auto* a = findChild<QAction*>(name)) {
            a->setEnabled(gpu);
            const QString what = a->text().remove('&');
            a->setToolTip(gpu              ? what
                          : spec.isEmpty() ? tr("%1 needs a GPU: choose GPU or a remote worker with one under Run on (Parameters)").arg(what)
                                           : tr("%1 needs a GPU: %2 has none; choose another under Run on (Parameters)").arg(what, spec));
        }
    if (auto* a = findChild<QAction*>("action_sweep"))
        a->setToolTip(gpu ? a->text().remove('&')
                          : tr("Sweep on the CPU: every configuration runs on the interpreter at the cpu-args sizes and is checked; "
                               "timings need a GPU"));
}

void MainWindow::update_recent_menu() {
    recent_menu_->clear();
    for (const auto& p : Settings::recent_files())
        connect(recent_menu_->addAction(p), &QAction::triggered, this, [this, p] {
            if (maybe_save()) open_file(p);
        });
    recent_menu_->setEnabled(!recent_menu_->isEmpty());
}

void MainWindow::update_title() {
    QString name = path_.isEmpty() ? tr("untitled.py") : QFileInfo(path_).fileName();
    setWindowTitle(QStringLiteral("%1%2 — TilePlay").arg(name, editor_->isModified() ? "*" : ""));
}

void MainWindow::set_theme(const QString& name) {
    theme_name_ = name == "light" ? "light" : "dark";
    Settings::set_theme(theme_name_);
    const Theme& t = theme_named(theme_name_);
    if (auto* app = qobject_cast<QApplication*>(QCoreApplication::instance())) apply_app_theme(*app, t);
    editor_->apply_theme(t, Settings::font_size());
    views_->apply_theme(t, Settings::font_size() - 1);
    charts_->apply_theme(t);
    compare_->apply_theme(t);
    output_->apply_theme(t, Settings::font_size() - 1);
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (!maybe_save()) {
        e->ignore();
        return;
    }
    runs_->cancel();
    Settings::set_window_geometry(saveGeometry());
    Settings::set_window_state(saveState());
    Settings::set_last_file(path_);
    recovery_->discard();  // a clean exit leaves nothing to recover
    e->accept();
}

}  // namespace tpui
