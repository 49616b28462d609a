// The remote workers the playground knows (Run on's remote entries), widget-free: each spec as
// `tilec --worker` takes it (ssh://[user@]HOST[:PORT][/path/to/tilec], slurm:PARTITION) with what
// its last check found: checking, ready (the host, its GPU or none, its tilec version) or failed
// (why: unreachable, another version). The Remote workers dialog shows it; the window keeps the
// specs in the settings and asks it whether a worker has a GPU.
#pragma once

#include <QAbstractListModel>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <vector>

namespace tpui {

// What a `hello` through a worker's command found (session/worker_probe.h).
struct WorkerCheck {
    bool ok = false;
    QString kind;                           // failure kind: "unreachable", "version_mismatch", "bad_spec", "protocol"
    QString message;                        // the failure, for the user
    QString host, device, target, version;  // device: the GPU's name; empty when it has none
    QString no_gpu_why;                     // the worker's reason when it has no GPU
};

class RemoteWorkersModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum class State { Unchecked, Checking, Ready, Failed };
    struct Row {
        QString spec;
        State state = State::Unchecked;
        WorkerCheck check;
    };
    enum Roles { SpecRole = Qt::UserRole + 1, StateRole, HasGpuRole };

    explicit RemoteWorkersModel(QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

    void set_specs(const QStringList& specs);  // unchecked rows, duplicates and blanks dropped
    QStringList specs() const;
    int find(const QString& spec) const;  // -1 when absent
    bool add(const QString& spec);        // false when already listed or blank
    bool remove(const QString& spec);
    const Row* row(const QString& spec) const;
    const std::vector<Row>& rows() const { return rows_; }
    void set_checking(const QString& spec);
    void set_check(const QString& spec, const WorkerCheck& c);
    // Whether runs there may use a GPU: true once a check found one, false once it found none,
    // and true when not known yet (a failed or missing check), so the run says what is wrong.
    bool may_have_gpu(const QString& spec) const;
    // "ssh://box: NVIDIA H200 on box", "ssh://box: CPU only (no CUDA device)", "ssh://box: checking…"
    QString label(const QString& spec) const;

Q_SIGNALS:
    void specs_changed();  // rows added or removed (the window saves them)

private:
    std::vector<Row> rows_;
};

}  // namespace tpui

Q_DECLARE_METATYPE(tpui::WorkerCheck)
