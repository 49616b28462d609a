// RunService's workers: which command a job's worker runs (this machine's tilec, or a remote
// worker's ssh / srun command), starting it with its `hello`, the handshake a remote one must
// pass (same protocol and version, tp::hello_mismatch), and what happens when a worker goes:
// refused or unreachable ends the job; a crash or fatal CUDA error fails one configuration and
// the next starts a fresh worker.
#include <QJsonDocument>
#include <QJsonObject>

#include "session/run_service.h"
#include "session/worker_probe.h"
#include "tileplay/worker_client.h"

namespace tpui {

void RunService::set_command(const QString& program, const QStringList& args) {
    local_program_ = program;
    local_args_ = args;
    if (handshake_ || (program == program_ && args == args_)) return;  // a remote worker keeps its command
    program_ = program;
    args_ = args;
    // An idle worker of the old command would answer the next job: the next one starts anew.
    if (proc_ && !active_ && proc_->state() != QProcess::NotRunning) {
        proc_->kill();
        proc_->waitForFinished(2000);
    }
}

// A job's worker: this machine's (empty spec) or a remote one's command. Another command than
// the running worker's stops that worker (when idle), so the job starts the right one.
bool RunService::use_worker(const QString& spec, QString* error) {
    QString program = local_program_, where = "local";
    QStringList args = local_args_;
    if (spec.isEmpty() && job_.local_gpu >= 0) {
        // Pinned by the environment, as tp::local_workers pins a pool's members: the torch
        // worker it starts for the peers inherits it.
        args.prepend(program);
        args.prepend(QString("CUDA_VISIBLE_DEVICES=%1").arg(job_.local_gpu));
        program = "env";
    } else if (!spec.isEmpty()) {
        WorkerCommand cmd;
        if (!worker_command(spec, &cmd, error)) return false;
        program = cmd.program;
        args = cmd.args;
        where = cmd.where;
    }
    handshake_ = !spec.isEmpty();
    where_ = where;
    if (program == program_ && args == args_) return true;
    program_ = program;
    args_ = args;
    if (proc_ && proc_->state() != QProcess::NotRunning) {
        proc_->disconnect(this);
        proc_->kill();
        proc_->waitForFinished(2000);
        proc_->deleteLater();
        proc_ = nullptr;
    }
    return true;
}

void RunService::ensure_worker() {
    if (proc_ && proc_->state() != QProcess::NotRunning) return;
    if (proc_) proc_->deleteLater();
    proc_ = new QProcess(this);
    buffer_.clear();
    stderr_tail_.clear();
    connect(proc_, &QProcess::readyReadStandardOutput, this, &RunService::on_stdout);
    connect(proc_, &QProcess::readyReadStandardError, this, [this, p = proc_] {
        stderr_tail_ += p->readAllStandardError();
        if (stderr_tail_.size() > 4000) stderr_tail_ = stderr_tail_.right(4000);
    });
    connect(proc_, &QProcess::finished, this, [this, p = proc_](int, QProcess::ExitStatus) {
        if (p == proc_) on_worker_gone();
    });
    connect(proc_, &QProcess::errorOccurred, this, [this, p = proc_](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart && p == proc_) on_worker_gone();
    });
    ++workers_started_;
    device_name_.clear();
    host_.clear();
    proc_->start(program_, args_);
    // Out of band: the reply only names the device; requests queue behind it in the pipe.
    hello_id_ = next_id_++;
    if (proc_) proc_->write(QJsonDocument(QJsonObject{{"op", "hello"}, {"id", hello_id_}}).toJson(QJsonDocument::Compact) + "\n");
}

void RunService::on_hello(const QJsonObject& msg) {
    hello_id_ = 0;
    // A remote worker of another build compiles and checks differently: refuse it, as
    // `tilec --worker` does, before it answers the job's requests (queued behind the hello).
    if (handshake_) {
        const tp::Json hello = tp::Json::parse(QJsonDocument(msg).toJson(QJsonDocument::Compact).toStdString(), nullptr, false);
        const std::string mismatch = tp::hello_mismatch(hello, where_.toStdString());
        if (!mismatch.empty()) return refuse_worker(QString::fromStdString(mismatch));
    }
    QJsonObject dev = msg.value("device").toObject();
    device_name_ = dev.value("name").toString();
    host_ = msg.value("host").toString();
    Q_EMIT worker_ready(where_, host_, device_name_);
}

// The job cannot run on this worker at all (unreachable, another version): every configuration
// would fail the same way, so the job ends here with the reason.
void RunService::refuse_worker(const QString& why) {
    watchdog_.stop();
    if (proc_) {
        QProcess* p = proc_;
        proc_ = nullptr;
        p->disconnect(this);
        p->kill();
        p->waitForFinished(2000);
        p->deleteLater();
    }
    hello_id_ = 0;
    Q_EMIT worker_died(why);
    if (!active_) return;
    RunResult r = base_result();
    r.ok = false;
    r.correct = false;
    r.error = why;
    report_failure(r);
    finish(false, why);
}

// The worker said it is going (a fatal CUDA error: the context is lost and it exits right
// after the reply). Drop it now, so the next request starts a fresh worker instead of being
// written into a dying one and blamed on the next configuration.
void RunService::abandon_worker(const QString& why) {
    if (!proc_) return;
    QProcess* p = proc_;
    proc_ = nullptr;
    p->disconnect(this);
    p->closeWriteChannel();
    if (!p->waitForFinished(2000)) p->kill();
    p->deleteLater();
    Q_EMIT worker_died(why);
}

void RunService::on_worker_gone() {
    watchdog_.stop();
    if (killing_ || !proc_) return;
    QString why = proc_->error() == QProcess::FailedToStart    ? tr("cannot start the worker `%1`: %2").arg(program_, proc_->errorString())
                  : proc_->exitStatus() == QProcess::CrashExit ? tr("the worker crashed")
                                                               : tr("the worker exited with code %1").arg(proc_->exitCode());
    QString tail = QString::fromUtf8(stderr_tail_).trimmed();
    if (!tail.isEmpty()) why += ": " + tail.section('\n', -1);
    bool failed_to_start = proc_->error() == QProcess::FailedToStart;
    // A remote worker that ended before its hello never started: ssh could not log in, or
    // srun could not place it. Say so with the command's last words, and stop the job.
    if (handshake_ && hello_id_) {
        // Its hello may still be in the pipe (a worker of another build answers, then exits on
        // the next request): that verdict says more than "exited".
        QProcess* p = proc_;
        on_stdout();
        if (proc_ != p || !hello_id_) return;
        stderr_tail_ += proc_->readAllStandardError();
        why = QString::fromStdString(tp::unreachable_worker_error(where_.toStdString(), stderr_tail_.toStdString(), why.toStdString()));
        return refuse_worker(why);
    }
    proc_->deleteLater();
    proc_ = nullptr;
    if (!active_) return;  // died while idle: a fresh one starts with the next job
    Q_EMIT worker_died(why);
    RunResult r = base_result();
    r.ok = false;
    r.correct = false;
    r.error = why;
    if (peers_only(r)) return;
    report_failure(r);
    if (failed_to_start) {
        finish(false, why);
        return;
    }
    ++index_;
    next_config();  // starts a fresh worker
}

}  // namespace tpui
