// MainWindow and where kernels run: Run on's remote workers (added, checked and removed in the
// Remote workers dialog, kept in the settings), the status bar's "Runs on" label, which jobs a
// place can take (a remote worker without a GPU runs and sweeps on its CPU), the pool Tune
// spreads over, and Pipeline > Record timeline (a stamped Run on a GPU worker whose Chrome
// trace the Pipeline dock shows in microseconds).
#include <QDockWidget>
#include <QLabel>
#include <QStatusBar>

#include "main_window.h"
#include "models/remote_workers_model.h"
#include "panels/parameters/parameters_panel.h"
#include "panels/pipeline/pipeline_panel.h"
#include "panels/results/results_panel.h"
#include "panels/workers/remote_workers_dialog.h"
#include "session/worker_probe.h"
#include "settings.h"
#include "tileplay/worker_pool.h"

namespace tpui {

void MainWindow::build_workers() {
    workers_ = new RemoteWorkersModel(this);
    probe_ = new WorkerProbe(this);
    workers_->set_specs(Settings::remote_workers());
    if (local_gpu_) local_gpus_ = int(tp::local_workers(0, {}).size());
    status_where_ = new QLabel;
    status_where_->setObjectName("run_on_status");
    statusBar()->addPermanentWidget(status_where_);
    connect(workers_, &RemoteWorkersModel::specs_changed, this, [this] {
        Settings::set_remote_workers(workers_->specs());
        refresh_run_on();
    });
    connect(probe_, &WorkerProbe::checked, this, [this](const QString& spec, const WorkerCheck& r) {
        workers_->set_check(spec, r);
        refresh_run_on();
        if (pending_job_ && spec == remote_spec()) {
            const RunJob::Kind kind = *pending_job_;
            const bool timeline = pending_timeline_;
            pending_job_.reset();
            if (r.ok)
                start_job(kind, timeline);
            else
                results_->show_message(r.message, true);
        }
    });
    connect(params_, &ParametersPanel::add_worker_requested, this, &MainWindow::open_workers_dialog);
    // The local worker's hello names this machine's GPU; a remote one's may differ from the
    // last check (another node of a Slurm partition).
    connect(runs_, &RunService::worker_ready, this, [this](const QString& where, const QString&, const QString& device) {
        if (where == "local") local_gpu_name_ = device;
        update_where();
    });
    connect(pipeline_, &PipelinePanel::record_requested, this, [this] { start_job(RunJob::Kind::Run, true); });
    refresh_run_on();
}

void MainWindow::open_workers_dialog() {
    auto* d = new RemoteWorkersDialog(workers_, probe_, this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    // A worker just added is where the user wants runs to go.
    connect(d, &RemoteWorkersDialog::worker_added, this, [this](const QString& spec) { params_->set_run_on(spec); });
    d->open();
}

// Run on's entries follow the model (labels name each worker's GPU once checked).
void MainWindow::refresh_run_on() {
    std::vector<std::pair<QString, QString>> entries;
    for (const auto& r : workers_->rows()) entries.emplace_back(r.spec, workers_->label(r.spec));
    params_->set_local_gpus(local_gpus_, entries);
    update_where();
    update_job_actions();
    update_cpu_note();  // a remote worker found without a GPU runs at the CPU sizes
}

QString MainWindow::remote_spec() const {
    const QString where = params_->run_on();
    if (where == "pool") return workers_->rows().empty() ? QString() : workers_->rows().front().spec;
    return where.startsWith("gpu") || where == "cpu" ? QString() : where;
}

int MainWindow::local_gpu() const {
    const QString where = params_->run_on();
    return where.startsWith("gpu:") ? where.mid(4).toInt() : -1;
}

bool MainWindow::run_cpu() const {
    if (params_->cpu()) return true;
    const QString spec = remote_spec();
    return !spec.isEmpty() && !workers_->may_have_gpu(spec);
}

// The chosen remote worker is checked once per session before its first job, so Run on can
// say what it has and a run can go to its CPU when it has no GPU.
void MainWindow::check_chosen_worker() {
    const QString spec = remote_spec();
    const auto* row = spec.isEmpty() ? nullptr : workers_->row(spec);
    if (row && row->state == RemoteWorkersModel::State::Unchecked) {
        workers_->set_checking(spec);
        probe_->check(spec);
        refresh_run_on();
    }
}

std::vector<tp::WorkerOptions> MainWindow::tune_pool() const {
    std::vector<tp::WorkerOptions> pool;
    const QString where = params_->run_on();
    if (const int gpu = local_gpu(); gpu >= 0) {
        // That GPU alone, pinned as tp::local_workers pins one ("gpu" leaves it the whole host).
        std::vector<tp::WorkerOptions> all = tp::local_workers(0, {});
        if (size_t(gpu) < all.size()) pool.push_back(all[size_t(gpu)]);
        return pool;
    }
    QStringList specs = where == "pool" ? workers_->specs() : QStringList{remote_spec()};
    for (const QString& s : specs) {
        tp::WorkerOptions o;
        if (!s.isEmpty() && tp::parse_worker_spec(s.toStdString(), o, nullptr)) pool.push_back(o);
    }
    return pool;
}

// "Runs on: ..." in the status bar, and whether Record timeline can run there.
void MainWindow::update_where() {
    if (!status_where_) return;
    const QString where = params_->run_on(), spec = remote_spec();
    QString text;
    if (where == "cpu")
        text = tr("this machine's CPU");
    else if (where.startsWith("gpu:"))
        text = tr("this machine's GPU %1").arg(local_gpu());
    else if (where == "gpu")
        text = local_gpu_ ? tr("this machine's GPU%1").arg(local_gpu_name_.isEmpty() ? QString() : " (" + local_gpu_name_ + ")")
                          : tr("this machine's GPU (none found)");
    else if (where == "pool")
        text = tr("a pool of %1 remote workers (Tune; other jobs on %2)").arg(workers_->rows().size()).arg(spec);
    else
        text = workers_->label(spec);
    status_where_->setText(tr("Runs on: %1").arg(text));
    QString why;
    bool gpu = false;
    if (spec.isEmpty()) {
        gpu = where.startsWith("gpu") && local_gpu_;
        why = where == "cpu" ? tr("the CPU interpreter has no GPU clock: choose a GPU under Run on")
                             : tr("this machine has no CUDA device (%1): add a remote worker with a GPU under Run on").arg(no_gpu_why_);
    } else {
        const auto* row = workers_->row(spec);
        gpu = row && row->state == RemoteWorkersModel::State::Ready && !row->check.device.isEmpty();
        why =
            !row || row->state != RemoteWorkersModel::State::Ready ? tr("%1 has not answered a check yet").arg(spec) : tr("%1 has no GPU").arg(spec);
    }
    pipeline_->set_record_enabled(gpu, gpu ? tr("Run the kernel once on %1 with its pipeline events stamped (tp.timeline=true) and show "
                                                "the measured lanes in microseconds")
                                                 .arg(text)
                                           : tr("Record timeline needs a GPU: %1").arg(why));
}

// A Record timeline run's trace (or why it has none) goes to the Pipeline dock.
void MainWindow::show_recorded_timeline(const RunResult& r) {
    recording_timeline_ = false;
    if (auto* d = findChild<QDockWidget*>("dock_pipeline")) {
        d->show();
        d->raise();
    }
    const QString where = r.worker.isEmpty() ? r.device : r.device + " at " + r.worker;
    if (!r.timeline.isEmpty()) {
        pipeline_->show_timeline(r.timeline, tr("recorded on %1").arg(where));
        return;
    }
    pipeline_->show_timeline_error(!r.ok ? r.error : r.timeline_note.isEmpty() ? tr("the run returned no timeline") : r.timeline_note);
}

}  // namespace tpui
