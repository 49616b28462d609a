// WorkerProbe (see worker_probe.h).
#include "session/worker_probe.h"

#include <QJsonDocument>
#include <QJsonObject>

#include "tileplay/worker_client.h"

namespace tpui {

bool worker_command(const QString& spec, WorkerCommand* out, QString* error) {
    tp::WorkerOptions o;
    std::string why;
    if (!tp::parse_worker_spec(spec.trimmed().toStdString(), o, &why)) {
        if (error) *error = QString::fromStdString(why);
        return false;
    }
    if (o.command.empty()) {  // "local": the caller's own worker
        if (error) *error = QObject::tr("`%1` is this machine: choose GPU or CPU under Run on").arg(spec);
        return false;
    }
    out->program = QString::fromStdString(o.command.front());
    out->args.clear();
    for (size_t i = 1; i < o.command.size(); ++i) out->args << QString::fromStdString(o.command[i]);
    out->where = QString::fromStdString(o.where);
    out->start_timeout_ms = int(o.start_timeout_s * 1000);
    return true;
}

WorkerProbe::WorkerProbe(QObject* parent) : QObject(parent) {}

WorkerProbe::~WorkerProbe() {
    for (const QString& spec : checks_.keys()) cancel(spec);
    // Workers told to shut down after answering: end them rather than leave them to ssh.
    for (QProcess* p : findChildren<QProcess*>()) {
        p->disconnect();
        p->kill();
        p->waitForFinished(1000);
    }
}

void WorkerProbe::check(const QString& spec) {
    if (checks_.contains(spec)) return;
    WorkerCommand cmd;
    QString error;
    if (!worker_command(spec, &cmd, &error)) {
        WorkerCheck r;
        r.kind = "bad_spec";
        r.message = error;
        Q_EMIT checked(spec, r);
        return;
    }
    Check c;
    c.where = cmd.where;
    c.proc = new QProcess(this);
    c.timer = new QTimer(this);
    c.timer->setSingleShot(true);
    checks_.insert(spec, c);
    connect(c.proc, &QProcess::readyReadStandardOutput, this, [this, spec] { on_output(spec); });
    connect(c.proc, &QProcess::readyReadStandardError, this, [this, spec] {
        if (auto it = checks_.find(spec); it != checks_.end()) it->err += it->proc->readAllStandardError();
    });
    // The command ended before answering: ssh could not log in, srun could not allocate, or the
    // remote tilec is missing. Its last stderr line says which.
    auto gone = [this, spec](const QString& fallback) {
        auto it = checks_.find(spec);
        if (it == checks_.end()) return;
        it->err += it->proc->readAllStandardError();
        WorkerCheck r;
        r.kind = "unreachable";
        r.message = QString::fromStdString(tp::unreachable_worker_error(it->where.toStdString(), it->err.toStdString(), fallback.toStdString()));
        finish(spec, r);
    };
    connect(c.proc, &QProcess::finished, this, [gone](int code, QProcess::ExitStatus st) {
        gone(st == QProcess::CrashExit ? tr("the command crashed") : tr("the command exited with code %1").arg(code));
    });
    connect(c.proc, &QProcess::errorOccurred, this, [gone, p = c.proc](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) gone(tr("cannot start `%1`: %2").arg(p->program(), p->errorString()));
    });
    connect(c.timer, &QTimer::timeout, this, [this, spec, ms = cmd.start_timeout_ms] {
        WorkerCheck r;
        r.kind = "unreachable";
        r.message = tr("no answer from the worker at %1 within %2 s").arg(checks_.value(spec).where).arg(ms / 1000);
        finish(spec, r);
    });
    c.proc->start(cmd.program, cmd.args);
    c.proc->write(R"({"op": "hello", "id": 1})"
                  "\n");
    c.timer->start(cmd.start_timeout_ms);
}

void WorkerProbe::on_output(const QString& spec) {
    auto it = checks_.find(spec);
    if (it == checks_.end()) return;
    it->out += it->proc->readAllStandardOutput();
    const int nl = it->out.indexOf('\n');
    if (nl < 0) return;
    const QByteArray line = it->out.left(nl).trimmed();
    const tp::Json hello = tp::Json::parse(line.toStdString(), nullptr, false);
    WorkerCheck r;
    if (!hello.is_object() || hello.value("id", 0) != 1) {
        r.kind = "protocol";
        r.message = tr("the worker at %1 answered `hello` with something else: %2").arg(it->where, QString::fromUtf8(line.left(200)));
        return finish(spec, r);
    }
    const std::string mismatch = tp::hello_mismatch(hello, it->where.toStdString());
    r.version = QString::fromStdString(hello.value("version", std::string()));
    r.host = QString::fromStdString(hello.value("host", std::string()));
    if (!mismatch.empty()) {
        r.kind = "version_mismatch";
        r.message = QString::fromStdString(mismatch);
        return finish(spec, r);
    }
    r.ok = true;
    if (hello.contains("device") && hello["device"].is_object()) {
        r.device = QString::fromStdString(hello["device"].value("name", std::string()));
        r.target = QString::fromStdString(hello["device"].value("target", std::string()));
    } else {
        r.no_gpu_why = QString::fromStdString(hello.value("why", std::string()));
    }
    finish(spec, r);
}

void WorkerProbe::finish(const QString& spec, const WorkerCheck& r) {
    auto it = checks_.find(spec);
    if (it == checks_.end()) return;
    Check c = *it;
    checks_.erase(it);
    c.timer->stop();
    c.timer->deleteLater();
    c.proc->disconnect(this);
    // A worker that answered is asked to go (it then reads EOF and exits, ending ssh); one
    // that did not is killed.
    if (r.ok) {
        c.proc->write(R"({"op": "shutdown", "id": 2})"
                      "\n");
        c.proc->closeWriteChannel();
        connect(c.proc, &QProcess::finished, c.proc, &QObject::deleteLater);
        QTimer::singleShot(5000, c.proc, [p = c.proc] { p->kill(); });
    } else {
        c.proc->kill();
        c.proc->waitForFinished(1000);
        c.proc->deleteLater();
    }
    Q_EMIT checked(spec, r);
}

void WorkerProbe::cancel(const QString& spec) {
    auto it = checks_.find(spec);
    if (it == checks_.end()) return;
    Check c = *it;
    checks_.erase(it);
    c.proc->disconnect(this);
    c.proc->kill();
    c.proc->waitForFinished(1000);
    delete c.proc;
    delete c.timer;
}

}  // namespace tpui
