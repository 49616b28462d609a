// Run on > Add remote worker...: the remote workers the playground knows, each with what its
// last check found (RemoteWorkersModel). A spec typed here (ssh://[user@]HOST[:PORT][/path/to/
// tilec] or slurm:PARTITION) is checked first, in the background (WorkerProbe: the hello
// handshake), and kept only when its worker answered as this build; an unreachable host or
// another tilec version is said in red under the field. Listed workers can be checked again
// or removed. The window saves the list in the settings.
#pragma once

#include <QDialog>

class QLabel;
class QLineEdit;
class QListView;
class QPushButton;

namespace tpui {

class RemoteWorkersModel;
class WorkerProbe;
struct WorkerCheck;

class RemoteWorkersDialog : public QDialog {
    Q_OBJECT
public:
    RemoteWorkersDialog(RemoteWorkersModel* model, WorkerProbe* probe, QWidget* parent = nullptr);

    // Checks `spec` and adds it when its worker answers (what the Add button does).
    void add_spec(const QString& spec);
    QString status_text() const;

Q_SIGNALS:
    // A worker was added after a successful check: Run on may switch to it.
    void worker_added(const QString& spec);

private:
    void on_checked(const QString& spec, const WorkerCheck& r);
    void set_status(const QString& text, bool error);
    QString selected() const;
    void update_buttons();

    RemoteWorkersModel* model_;
    WorkerProbe* probe_;
    QListView* list_ = nullptr;
    QLineEdit* spec_ = nullptr;
    QLabel* status_ = nullptr;
    QPushButton* add_ = nullptr;
    QPushButton* check_ = nullptr;
    QPushButton* remove_ = nullptr;
    QString adding_;  // the spec being checked before it is kept
};

}  // namespace tpui
