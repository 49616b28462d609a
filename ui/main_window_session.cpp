// MainWindow <-> session services: building compile requests from the editor and the
// parameters panel, showing results in every panel, and starting runs.
#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QStatusBar>
#include <QTimer>
#include <algorithm>
#include <set>

#include "editor/dsl_editor.h"
#include "main_window.h"
#include "models/output_log.h"
#include "models/parameters_model.h"
#include "models/problems_model.h"
#include "models/remote_workers_model.h"
#include "panels/layout/layout_panel.h"
#include "panels/pipeline/pipeline_panel.h"
#include "models/results_model.h"
#include "models/sweep_model.h"
#include "panels/charts/charts_panel.h"
#include "panels/compare/compare_panel.h"
#include "panels/code_views/code_views_panel.h"
#include "panels/parameters/parameters_panel.h"
#include "panels/results/results_panel.h"
#include "session/tune_service.h"
#include "session/worker_probe.h"
#include "settings.h"
#include "tileplay/tune.h"

namespace tpui {

tp::CompileRequest MainWindow::make_request() const {
    tp::CompileRequest req;
    req.path = path_.isEmpty() ? "untitled.py" : path_.toStdString();
    req.source = editor_->text().toStdString();
    req.kernel = params_->kernel().toStdString();
    if (req.kernel.empty()) req.kernel = header_.kernel;
    req.defines = params_model_->values_as_defines();
    req.fallback_defines = header_.args;
    req.target = params_->target().toStdString();
    req.print_after_all = true;  // the IR view can show the IR after any pass
    return req;
}

void MainWindow::request_compile(bool now) {
    // An empty, unnamed document (the first start) has nothing to compile: no "no kernel found"
    // error as the first thing a new user sees.
    const QString hint = tr("Open a sample from the welcome page, or start a kernel with File > New");
    if (path_.isEmpty() && editor_->text().trimmed().isEmpty()) {
        compile_problems_.clear();
        run_problems_.clear();
        publish_problems();
        header_ = {};
        update_lesson();
        statusBar()->showMessage(hint);
        return;
    }
    // The hint has no timeout: once there is a kernel it is wrong, and it also covered the
    // compile status (shown before the window, the status label was never hidden under it).
    if (statusBar()->currentMessage() == hint) statusBar()->clearMessage();
    header_ = tp::parse_sample_header(editor_->text().toStdString());
    // Typing updates the lesson when its compile comes back: a select-all-and-paste passes
    // through an empty text, which must not close the lesson and forget its hints.
    if (now) update_lesson();
    tp::CompileRequest req = make_request();
    if (now) compile_->compile_now(req);
    else compile_->schedule(req);
}

void MainWindow::on_compiled(CompileResultPtr r, quint64) {
    last_ = r;
    const tp::CompileResult& c = *r;
    std::vector<Problem> probs = problems_from(c.diagnostics);
    if (c.internal_error) {
        Problem p;
        p.message = tr("internal compiler error: %1 (%2:%3); please report it").arg(QString::fromUtf8(c.internal_error->what()),
                                                                                   QString::fromStdString(c.internal_error->file))
                        .arg(c.internal_error->line);
        p.kind = "InternalError";
        probs.push_back(p);
    }
    // A new compile is new code: the last run's race findings may no longer be at those lines.
    compile_problems_ = std::move(probs);
    run_problems_.clear();
    publish_problems();
    update_lesson();
    views_->set_result(r);
    editor_->set_link_lines(views_->links().mapped_dsl_lines());
    layout_->set_request(make_request(), c.ok);
    pipeline_->set_request(make_request(), c.ok);
    update_compare();

    QString current = QString::fromStdString(c.kernel.factory.empty() ? header_.kernel : c.kernel.factory);
    params_->set_factories(c.factories, current);
    for (const auto& f : c.factories)
        if (QString::fromStdString(f.name) == params_->kernel()) params_model_->set_factory(f, header_.args);
    update_cpu_note();

    // Front end and back end stages by name; the passes summed into one entry.
    QStringList parts;
    double passes_ms = 0;
    for (const auto& t : c.timings) {
        static const QStringList named = {"parse", "evaluate", "codegen", "nvrtc-ptx", "nvrtc-cubin", "nvrtc-cache-memory", "nvrtc-cache-disk", "ptx-lines"};
        QString n = QString::fromStdString(t.name);
        if (named.contains(n)) parts << QStringLiteral("%1 %2").arg(n).arg(t.ms, 0, 'f', 1);
        else passes_ms += t.ms;
    }
    if (passes_ms > 0) parts.insert(std::min<qsizetype>(2, parts.size()), QStringLiteral("passes %1").arg(passes_ms, 0, 'f', 1));
    status_timings_->setText(tr("%1 ms — %2").arg(c.total_ms(), 0, 'f', 1).arg(parts.join(" · ")));
    int errors = problems_model_->error_count(), warnings = problems_model_->warning_count();
    QString res;
    if (c.resources.registers >= 0) res = tr(", %1 registers").arg(c.resources.registers);
    // Spills beside the register count (the warning at the fragment's line says which and why).
    if (c.resources.spill_store_bytes > 0) res += tr(" (%1 B spilled)").arg(c.resources.spill_store_bytes);
    if (c.resources.static_shared_bytes >= 0 || c.resources.dynamic_shared_bytes > 0)
        res += tr(", %1 KB shared").arg((std::max<int64_t>(0, c.resources.static_shared_bytes) + c.resources.dynamic_shared_bytes) / 1024.0, 0, 'f', 1);
    status_state_->setText(c.ok ? tr("compiled %1 for %2%3").arg(QString::fromStdString(c.kernel.name), params_->target(), res)
                                : tr("%n error(s)", nullptr, errors) + (warnings ? tr(", %n warning(s)", nullptr, warnings) : QString()));

    if (!screenshot_path_.isEmpty() && !screenshot_after_job_) {
        if (screenshot_job_) {
            screenshot_after_job_ = true;
            start_job(*screenshot_job_);
        } else {
            grab_screenshot();
        }
    }
}

void MainWindow::grab_screenshot() {
    QString path = screenshot_path_;
    screenshot_path_.clear();
    const bool sweep = screenshot_job_ == RunJob::Kind::Sweep || screenshot_job_ == RunJob::Kind::Tune;
    screenshot_job_.reset();
    screenshot_after_job_ = false;
    if (path.isEmpty()) return;
    if (auto* d = findChild<QDockWidget*>("dock_charts"); d && sweep) {
        d->show();
        d->raise();
    }
    // Let the views lay out and paint once before grabbing.
    QTimer::singleShot(300, this, [this, path] {
        bool ok = grab().save(path, "PNG");
        if (screenshot_done_) screenshot_done_(ok);
    });
}

void MainWindow::take_screenshot_after_compile(const QString& path, std::function<void(bool)> done) {
    screenshot_path_ = path;
    screenshot_done_ = std::move(done);
    request_compile(true);
}

void MainWindow::take_screenshot_after_run(const QString& path, std::function<void(bool)> done) {
    take_screenshot_after_job(path, RunJob::Kind::Run, std::move(done));
}

void MainWindow::take_screenshot_after_job(const QString& path, RunJob::Kind kind, std::function<void(bool)> done) {
    screenshot_job_ = kind;
    take_screenshot_after_compile(path, std::move(done));
}

void MainWindow::start_job(RunJob::Kind kind, bool timeline) {
    if (tune_->busy()) {
        results_->show_message(tr("a tune is running: wait for it, or Cancel it"), true);
        return;
    }
    // A remote worker not checked yet this session: check it first (it may have no GPU, and
    // then runs go to its CPU), and start the job when it answers.
    if (const auto* row = workers_->row(remote_spec()); row && row->state != RemoteWorkersModel::State::Ready) {
        if (row->state != RemoteWorkersModel::State::Checking) {
            workers_->set_checking(row->spec);
            probe_->check(row->spec);
            refresh_run_on();
        }
        pending_job_ = kind;
        pending_timeline_ = timeline;
        results_->show_message(tr("checking %1 before the %2…").arg(row->spec, RunService::kind_name(kind)), false);
        return;
    }
    recording_timeline_ = timeline;
    job_kind_ = kind;
    lesson_judged_ = false;
    // Show where the job's progress and results will appear.
    if (auto* d = findChild<QDockWidget*>("dock_results")) {
        d->show();
        d->raise();
    }
    header_ = tp::parse_sample_header(editor_->text().toStdString());
    tp::CompileRequest req = make_request();
    // The Output panel shows the job that is starting, not an older one's lines.
    auto begin_output = [this] {
        output_log_->clear();
        output_shown_ = false;
    };
    if (run_cpu() && (timeline || (kind != RunJob::Kind::Run && kind != RunJob::Kind::Sweep))) {
        results_->show_message(tr("%1 needs a GPU: CPU runs only check that the kernel runs; choose GPU in Parameters")
                                   .arg(timeline ? tr("Record timeline") : RunService::kind_name(kind)),
                               true);
        recording_timeline_ = false;
        return;
    }
    RunJob job;
    job.kind = kind;
    job.path = QString::fromStdString(req.path);
    job.source = editor_->text();
    job.kernel = QString::fromStdString(req.kernel);
    job.target = params_->target();
    job.defines = req.defines;
    job.fallback_defines = header_.args;
    job.worker = remote_spec();
    job.local_gpu = local_gpu();
    if (timeline) job.pass_configs = {{"tp.timeline", "true"}};
    if (run_cpu() && kind == RunJob::Kind::Run) {
        begin_output();
        start_cpu_run(job);
        return;
    }
    job.flops_formula = QString::fromStdString(header_.flops);
    job.bytes_formula = QString::fromStdString(header_.bytes);
    for (const auto& b : header_.baselines) job.baselines << QString::fromStdString(b);
    if (kind == RunJob::Kind::Sweep || kind == RunJob::Kind::Tune) {
        // The same space `tilec tune` uses: the factory's @autotune(configs=...), else the
        // header's `# tileplay: tune` line (the fixed parameters may shape the configs).
        tp::TuneConfig fixed = req.defines;
        for (const auto& kv : header_.args)
            if (std::none_of(fixed.begin(), fixed.end(), [&](const auto& f) { return f.first == kv.first; })) fixed.push_back(kv);
        tp::TuneSpace space = tp::find_tune_space(req.path, req.source, req.kernel, {}, fixed, req.target);
        if (!space.ok || space.configs.empty()) {
            QString why = space.diagnostics.empty() ? tr("the file has no search space")
                                                    : QString::fromStdString(space.diagnostics.front().message);
            results_->show_message(tr("nothing to sweep: %1").arg(why), true);
            return;
        }
        job.configs = space.configs;
        // Every config is checked against the interpreter; at the worker's 64 blocks that took
        // seconds per config of the 4096^3 GEMM on the H200 machine (the 64-config sweep ran
        // past 4 minutes). 8 sampled blocks still catch a wrong schedule, which breaks tiles
        // everywhere; `tilec sweep` checks 16 by default, `tilec bench` 64.
        job.check_blocks = 8;
        sweep_model_->clear();
        if (run_cpu()) {
            // A CPU sweep: each configuration interpreted at the cpu-args sizes and checked
            // whole (the interpreter runs every block anyway).
            job.check_blocks = 0;
            begin_output();
            start_cpu_run(job);
            return;
        }
        if (kind == RunJob::Kind::Tune) {
            // Tune is the autotuner itself (tp::run_tune, as `tilec tune`): compiles on every
            // core, times configs under one GPU lock, checks them, caches the answer.
            tp::TuneOptions o;
            o.path = req.path;
            o.source = req.source;
            o.kernel = req.kernel;
            for (const auto& kv : req.defines)
                if (std::none_of(space.configs.front().begin(), space.configs.front().end(),
                                 [&](const auto& c) { return c.first == kv.first; }))
                    o.defines.push_back(kv);
            o.target = params_->target().toStdString();
            o.device = "gpu";
            o.check_blocks = job.check_blocks;
            o.pool = tune_pool();  // the chosen remote worker, or all of them (Run on's pool)
            results_->job_started(tr("Tune"), int(space.configs.size()));
            begin_output();
            tune_->start(o);
            return;
        }
    }
    begin_output();
    runs_->start(job);
}

void MainWindow::on_run_result(const RunResult& r) {
    // What the kernel printed goes to the Output tab. A plain Run that prints is run to see the
    // lines, and a failed assertion's message explains the failure: bring the tab to the front
    // once per job (raise() switches tabs without taking the editor's focus). Benchmarks and
    // sweeps keep Results in front; the tab's title counts the lines.
    if (recording_timeline_) show_recorded_timeline(r);
    bool printed = output_log_->add(r);
    if (printed && !output_shown_ && (job_kind_ == RunJob::Kind::Run || !r.ok)) {
        output_shown_ = true;
        if (auto* d = findChild<QDockWidget*>("dock_output")) {
            d->show();
            d->raise();
        }
    }
    if (job_kind_ == RunJob::Kind::Sweep || job_kind_ == RunJob::Kind::Tune) {
        sweep_model_->add(r);
    } else {
        results_model_->set_result(r);
    }
    if (job_kind_ == RunJob::Kind::Run) judge_run(r);
    if (job_kind_ == RunJob::Kind::Tune) {
        // After each result, keep the fastest configuration in the parameters panel.
        auto best = sweep_model_->sorted_by_latency();
        if (!best.empty())
            for (const auto& [k, v] : best.front().params) params_model_->set_value(k, v);
    }
}

// Run on the CPU: the same worker as a GPU run, told to interpret the kernel. The panel shows
// the header's GPU problem size (args), which can take the interpreter minutes: a parameter the
// user left at that value takes its cpu-args value instead; one the cpu-args line does not set
// stays, and is named if the run is refused over the memory budget.
void MainWindow::start_cpu_run(RunJob job) {
    Defines cpu_args = header_.cpu_args.empty() ? header_.args : header_.cpu_args;
    auto has = [](const Defines& d, const std::string& k, const std::string* v) {
        return std::any_of(d.begin(), d.end(), [&](const auto& kv) { return kv.first == k && (!v || kv.second == *v); });
    };
    // As the note under the parameters says: any value the user did not type (the file's GPU
    // size or the factory's default) gives way to the cpu-args line.
    std::erase_if(job.defines, [&](const auto& kv) {
        if (!has(cpu_args, kv.first, nullptr)) return false;
        for (const auto& r : params_model_->rows())
            if (r.name == QString::fromStdString(kv.first)) return !r.overridden();
        return has(header_.args, kv.first, &kv.second);
    });
    job.fallback_defines = cpu_args;
    job.cpu = true;
    // The race checker follows one run's threads: a sweep's many configurations go without it.
    job.check_races = job.kind == RunJob::Kind::Run && check_races_ && check_races_->isChecked();
    job.memory_budget = qint64(std::max(0, Settings::cpu_memory_budget_mib())) << 20;
    job.memory_budget_from = tr("the playground's cpu_memory_budget_mib setting");
    QStringList kept, notes;
    for (const auto& [k, v] : gpu_sizes_on_cpu()) kept << QString::fromStdString(k + "=" + v);
    if (!kept.isEmpty())
        notes << (header_.cpu_args.empty()
                      ? tr("%1: the header's GPU sizes, since it has no `# tileplay: cpu-args` line; type smaller values in Parameters")
                      : tr("%1: the header's GPU sizes, which its `# tileplay: cpu-args` line does not set; type smaller values in "
                           "Parameters, or add them to that line"))
                     .arg(kept.join(", "));
    // Where the budget can be raised, when it is the worker's default.
    if (Settings::cpu_memory_budget_mib() <= 0) notes << tr("the cpu_memory_budget_mib setting (MiB) sets another budget");
    job.budget_note = notes.join("; ");
    runs_->start(job);
}

Defines MainWindow::gpu_sizes_on_cpu() const {
    // Only values that size a tensor of the last compile (a dimension equal to the value):
    // `threads` or `num_stages` left at the GPU's value cost the interpreter nothing.
    std::set<std::string> dims;
    if (last_)
        for (const auto& p : last_->kernel.params)
            for (int64_t d : p.shape) dims.insert(std::to_string(d));
    Defines kept;
    for (const auto& [k, v] : header_.args) {
        if (last_ && !dims.count(v)) continue;
        bool in_cpu_args = std::any_of(header_.cpu_args.begin(), header_.cpu_args.end(), [&](const auto& c) { return c.first == k; });
        if (in_cpu_args) continue;
        const QString name = QString::fromStdString(k);
        bool typed = false;
        for (const auto& r : params_model_->rows())
            if (r.name == name && (r.overridden() || r.value != QString::fromStdString(v))) typed = true;
        if (!typed) kept.emplace_back(k, v);
    }
    return kept;
}

void MainWindow::update_output_title() {
    auto* d = findChild<QDockWidget*>("dock_output");
    if (!d) return;
    int n = output_log_->line_count();
    d->setWindowTitle(n ? tr("Output (%1)").arg(n) : tr("Output"));
}

// With Run on the CPU, values left at the header's GPU sizes run at its cpu-args instead (see
// start_job): the panel says which, so what runs is not a surprise.
void MainWindow::update_cpu_note() {
    QStringList used;
    if (run_cpu())
        for (const auto& [k, v] : header_.cpu_args) {
            const QString name = QString::fromStdString(k);
            for (const auto& r : params_model_->rows())
                if (r.name == name && !r.overridden() && r.value != QString::fromStdString(v)) used << name + "=" + QString::fromStdString(v);
        }
    QStringList notes;
    if (!used.isEmpty()) notes << tr("Run on the CPU uses the header's CPU sizes for these: %1").arg(used.join(", "));
    // A size the cpu-args line does not set runs at the GPU's: say so before the run, not after.
    QStringList kept;
    if (run_cpu() && !header_.cpu_args.empty())
        for (const auto& [k, v] : gpu_sizes_on_cpu()) kept << QString::fromStdString(k + "=" + v);
    if (!kept.isEmpty())
        notes << (used.isEmpty() ? tr("Run on the CPU keeps the header's GPU sizes for these, which its cpu-args line does not set: %1")
                                 : tr("It keeps the GPU sizes for these, which the cpu-args line does not set: %1"))
                     .arg(kept.join(", "));
    params_->set_note(notes.join(". "));
}

namespace {

// A compile as one side of the Compare dock: its parameters, target, PTX and the SASS the code
// views already disassembled.
ComparePanel::Side compare_side(const tp::CompileResult& c, const ParametersModel& params, const QString& target,
                                const QString& sass) {
    ComparePanel::Side side;
    QStringList values;
    for (const auto& row : params.rows()) values << row.name + "=" + row.value;
    side.config = values.join(' ') + " (" + target + ")";
    side.ptx = QString::fromStdString(c.ptx);
    side.sass = sass;
    return side;
}

}  // namespace

void MainWindow::pin_for_compare() {
    if (!last_ || last_->ptx.empty()) {
        statusBar()->showMessage(tr("Nothing to pin: the kernel has no PTX yet (see Problems)"), 8000);
        return;
    }
    const ComparePanel::Side side = compare_side(*last_, *params_model_, params_->target(), views_->sass_text());
    compare_->pin(side);
    compare_->set_current(side);
    if (auto* d = findChild<QDockWidget*>("dock_compare")) {
        d->show();
        d->raise();
    }
    statusBar()->showMessage(tr("Pinned this configuration: change the parameters to compare its code with theirs"), 8000);
}

void MainWindow::update_compare() {
    if (compare_->has_pin() && last_ && !last_->ptx.empty()) compare_->set_current(compare_side(*last_, *params_model_, params_->target(), views_->sass_text()));
}

}  // namespace tpui
