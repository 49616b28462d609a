// Checks remote workers without blocking the window: starts each spec's worker command
// (tp::parse_worker_spec: `ssh ... HOST -- tilec worker`, `srun ... tilec worker`) through
// QProcess, sends `hello`, and judges the reply as `tilec --worker` does (tp::hello_mismatch:
// another protocol or version is refused; a command that exits first is "cannot reach the
// worker at ..." with ssh's last line). Several checks may run at once; each ends with
// `checked` and its worker is told to shut down. Also turns a spec into the command RunService
// starts.
#pragma once

#include <QHash>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

#include "models/remote_workers_model.h"

namespace tpui {

struct WorkerCommand {
    QString program;
    QStringList args;
    QString where;             // "ssh://box", "slurm:gpu"
    int start_timeout_ms = 0;  // how long its hello may take (an ssh login, a Slurm queue)
};

// The command that starts `spec`'s worker; false with `error` (the core's message) when the
// spec cannot be read.
bool worker_command(const QString& spec, WorkerCommand* out, QString* error);

class WorkerProbe : public QObject {
    Q_OBJECT
public:
    explicit WorkerProbe(QObject* parent = nullptr);
    ~WorkerProbe() override;  // kills checks still running

    void check(const QString& spec);  // a second check of a spec that is running is ignored
    bool running(const QString& spec) const { return checks_.contains(spec); }
    void cancel(const QString& spec);

Q_SIGNALS:
    void checked(const QString& spec, const tpui::WorkerCheck& result);

private:
    struct Check {
        QProcess* proc = nullptr;
        QTimer* timer = nullptr;
        QByteArray out, err;
        QString where;
    };
    void on_output(const QString& spec);
    void finish(const QString& spec, const WorkerCheck& r);

    QHash<QString, Check> checks_;
};

}  // namespace tpui
