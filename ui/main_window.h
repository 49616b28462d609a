// The playground's main window: the DSL editor beside the generated-code views, docks for
// parameters, problems, results, charts, printed output, layouts and pipelines, menus and shortcuts, files (open/save/recent,
// autosave and crash recovery), themes, and the wiring between the session services and the
// panels (panels never call each other; the window routes their signals).
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <memory>
#include <optional>

#include "models/problems_model.h"
#include "session/compile_service.h"
#include "session/recovery_store.h"
#include "session/run_service.h"
#include "tileplay/sample_header.h"
#include "tileplay/worker_client.h"

class QAction;
class QLabel;
class QMenu;
class QSplitter;
class QStackedWidget;
class QTimer;

namespace tpui {

class ChartsPanel;
class ComparePanel;
class CodeViewsPanel;
class DslEditor;
class FindBar;
class LayoutPanel;
class PipelinePanel;
class LessonBanner;
class LessonState;
class OutputLog;
class OutputPanel;
class ParametersModel;
class ParametersPanel;
class ProblemsModel;
class ProblemsPanel;
class RemoteWorkersModel;
class WorkerProbe;
class ResultsModel;
class ResultsPanel;
class SweepModel;
class TuneService;
class WelcomePanel;
struct RunResult;
struct Theme;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    bool open_file(const QString& path);
    void set_text(const QString& text, const QString& path);  // without touching the disk
    // Saves a PNG of the window after the first compile finishes, then calls `done`.
    void take_screenshot_after_compile(const QString& path, std::function<void(bool)> done);
    // The same, but first runs the kernel (Run, on the device the parameters panel names) and
    // saves the PNG when the run has finished: the Output and Results docks show it.
    void take_screenshot_after_run(const QString& path, std::function<void(bool)> done);
    // The same for any job: Run, Bench (Results shows the baselines) or Sweep (the Charts dock
    // is brought to the front when the sweep ends, so the PNG shows the configs' chart).
    void take_screenshot_after_job(const QString& path, RunJob::Kind kind, std::function<void(bool)> done);
    void set_theme(const QString& name);
    // Offers the text a crashed session left behind (the newest; older ones wait for the next
    // start) in a dialog named "recovery_dialog", and restores it as an unsaved edit.
    void offer_recovery();
    void autosave();  // writes the unsaved text to this session's recovery file (timer-driven)
    RecoveryStore* recovery() const { return recovery_.get(); }

    CompileService* compile_service() const { return compile_; }
    RunService* run_service() const { return runs_; }
    TuneService* tune_service() const { return tune_; }
    RemoteWorkersModel* remote_workers() const { return workers_; }
    DslEditor* editor() const { return editor_; }

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    // main_window.cpp: layout, actions, theme
    void build_actions();
    void build_docks();
    void apply_default_layout();  // on first show: proportions that favour the code
    void update_job_actions();    // Benchmark, Sweep and Tune only with Run on a GPU
    void update_cpu_note();       // the sizes a CPU run will use, under the parameters
    // Header GPU sizes a CPU run keeps because the cpu-args line does not set them (and the
    // user did not type them): named in the note and in an over-budget refusal.
    Defines gpu_sizes_on_cpu() const;
    void start_cpu_run(RunJob job);
    void pin_for_compare();       // the current compile becomes the Compare dock's left side
    void update_compare();        // the current compile becomes its right side (when one is pinned)
    void update_title();
    void update_recent_menu();
    // main_window_session.cpp: compile and runs
    tp::CompileRequest make_request() const;
    void request_compile(bool now);
    void on_compiled(CompileResultPtr r, quint64 gen);
    // `timeline`: a Run with the pass config tp.timeline=true, its trace shown in the Pipeline dock.
    void start_job(RunJob::Kind kind, bool timeline = false);
    void on_run_result(const RunResult& r);
    void update_output_title();
    void grab_screenshot();  // saves screenshot_path_ once the window has painted
    // main_window_lessons.cpp: the open lesson and the race checker's findings
    void add_check_races_action(QMenu* run);
    void update_check_races_action();    // CPU runs only
    void update_lesson();                // from header_
    void judge_run(const RunResult& r);  // a finished Run: race findings, the lesson's check
    void lesson_job_finished(bool ok, const QString& message);
    void publish_problems();  // the compile's problems, then the last run's races
    // main_window_workers.cpp: where kernels run (Run on, remote workers, Record timeline)
    void build_workers();
    void open_workers_dialog();
    void refresh_run_on();
    void update_where();
    void check_chosen_worker();
    QString remote_spec() const;  // the remote worker jobs go to; empty: this machine
    int local_gpu() const;        // Run on's GPU N of this machine ("gpu:N"), else -1
    bool run_cpu() const;         // runs go to a CPU: this machine's, or a remote worker's without a GPU
    std::vector<tp::WorkerOptions> tune_pool() const;
    void show_recorded_timeline(const RunResult& r);
    // main_window_files.cpp: files, autosave, recovery
    void new_file();
    void open_dialog();
    bool save();
    bool save_as();
    bool maybe_save();
    void restore(const RecoveredText& r);

    DslEditor* editor_ = nullptr;
    FindBar* find_ = nullptr;
    QStackedWidget* left_ = nullptr;
    WelcomePanel* welcome_ = nullptr;
    CodeViewsPanel* views_ = nullptr;
    ParametersModel* params_model_ = nullptr;
    ProblemsModel* problems_model_ = nullptr;
    std::vector<Problem> compile_problems_;  // the last compile's diagnostics
    std::vector<Problem> run_problems_;      // the last Run's race findings, until the next compile
    LessonState* lesson_ = nullptr;
    LessonBanner* lesson_banner_ = nullptr;
    bool lesson_judged_ = false;  // this job's result was judged as the lesson's check
    QAction* check_races_ = nullptr;
    ResultsModel* results_model_ = nullptr;
    SweepModel* sweep_model_ = nullptr;
    ParametersPanel* params_ = nullptr;
    ProblemsPanel* problems_ = nullptr;
    ResultsPanel* results_ = nullptr;
    ChartsPanel* charts_ = nullptr;
    ComparePanel* compare_ = nullptr;
    LayoutPanel* layout_ = nullptr;
    PipelinePanel* pipeline_ = nullptr;
    OutputLog* output_log_ = nullptr;
    OutputPanel* output_ = nullptr;
    bool output_shown_ = false;  // this job already brought the Output tab to the front
    QMenu* recent_menu_ = nullptr;
    QLabel* status_timings_ = nullptr;
    QLabel* status_state_ = nullptr;
    QLabel* status_where_ = nullptr;  // "Runs on: ..."
    RemoteWorkersModel* workers_ = nullptr;
    WorkerProbe* probe_ = nullptr;
    bool local_gpu_ = false;                   // this machine has a CUDA device
    int local_gpus_ = 0;                       // how many
    QString no_gpu_why_;                       // why not
    QString local_gpu_name_;                   // from the local worker's hello
    std::optional<RunJob::Kind> pending_job_;  // waits for the chosen remote worker's check
    bool pending_timeline_ = false;
    bool recording_timeline_ = false;  // the running Run records a timeline
    QTimer* autosave_timer_ = nullptr;
    QSplitter* split_ = nullptr;
    bool docks_restored_ = false;  // a saved dock layout was restored: keep its sizes
    bool shown_once_ = false;
    QString no_gpu_note_;  // said once the window shows: why Run defaults to the CPU
    std::unique_ptr<RecoveryStore> recovery_;

    CompileService* compile_ = nullptr;
    RunService* runs_ = nullptr;
    TuneService* tune_ = nullptr;  // Tune: the autotuner on a background thread
    CompileResultPtr last_;
    tp::SampleHeader header_;
    QString path_;
    QString theme_name_;
    RunJob::Kind job_kind_ = RunJob::Kind::Run;
    QString screenshot_path_;
    std::optional<RunJob::Kind> screenshot_job_;  // the job to run before the screenshot
    bool screenshot_after_job_ = false;           // that job is going: grab when it ends
    std::function<void(bool)> screenshot_done_;
};

}  // namespace tpui
