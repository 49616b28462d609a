// RemoteWorkersDialog (see remote_workers_dialog.h).
#include "panels/workers/remote_workers_dialog.h"

#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QPushButton>
#include <QVBoxLayout>

#include "models/remote_workers_model.h"
#include "session/worker_probe.h"

namespace tpui {

RemoteWorkersDialog::RemoteWorkersDialog(RemoteWorkersModel* model, WorkerProbe* probe, QWidget* parent)
    : QDialog(parent), model_(model), probe_(probe) {
    setObjectName("remote_workers_dialog");
    setWindowTitle(tr("Remote workers"));
    auto* intro =
        new QLabel(tr("Kernels run on another machine through <code>tilec worker</code> over ssh (a key login: "
                      "no password prompt) or in a Slurm job; the kernel travels as source. The other end must "
                      "run the same tilec build."));
    intro->setWordWrap(true);
    spec_ = new QLineEdit;
    spec_->setObjectName("remote_worker_spec");
    spec_->setPlaceholderText(tr("ssh://user@gpu-box/path/to/tilec  or  slurm:gpu"));
    add_ = new QPushButton(tr("Check and add"));
    add_->setObjectName("remote_worker_add");
    add_->setDefault(true);
    auto* row = new QHBoxLayout;
    row->addWidget(spec_, 1);
    row->addWidget(add_);
    status_ = new QLabel;
    status_->setObjectName("remote_worker_status");
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    list_ = new QListView;
    list_->setObjectName("remote_workers_list");
    list_->setModel(model_);
    check_ = new QPushButton(tr("Check again"));
    check_->setObjectName("remote_worker_check");
    remove_ = new QPushButton(tr("Remove"));
    remove_->setObjectName("remote_worker_remove");
    auto* side = new QHBoxLayout;
    side->addWidget(check_);
    side->addWidget(remove_);
    side->addStretch(1);
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close);
    auto* v = new QVBoxLayout(this);
    v->addWidget(intro);
    v->addLayout(row);
    v->addWidget(status_);
    v->addWidget(list_, 1);
    v->addLayout(side);
    v->addWidget(close);
    resize(620, 360);

    connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(add_, &QPushButton::clicked, this, [this] { add_spec(spec_->text()); });
    connect(spec_, &QLineEdit::returnPressed, this, [this] { add_spec(spec_->text()); });
    connect(check_, &QPushButton::clicked, this, [this] {
        const QString s = selected();
        if (s.isEmpty()) return;
        model_->set_checking(s);
        set_status(tr("Checking %1…").arg(s), false);
        probe_->check(s);
    });
    connect(remove_, &QPushButton::clicked, this, [this] {
        const QString s = selected();
        if (s.isEmpty()) return;
        probe_->cancel(s);
        model_->remove(s);
        set_status(tr("Removed %1").arg(s), false);
    });
    connect(list_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &RemoteWorkersDialog::update_buttons);
    connect(model_, &QAbstractItemModel::rowsRemoved, this, &RemoteWorkersDialog::update_buttons);
    connect(probe_, &WorkerProbe::checked, this, &RemoteWorkersDialog::on_checked);
    update_buttons();
}

void RemoteWorkersDialog::add_spec(const QString& text) {
    const QString spec = text.trimmed();
    WorkerCommand cmd;
    QString error;
    if (!worker_command(spec, &cmd, &error)) return set_status(error, true);
    if (model_->find(spec) >= 0) {
        set_status(tr("%1 is listed already: Check again says how it is").arg(spec), false);
        return;
    }
    adding_ = spec;
    add_->setEnabled(false);
    set_status(tr("Checking %1: starting its worker and asking `hello`…").arg(spec), false);
    probe_->check(spec);
}

void RemoteWorkersDialog::on_checked(const QString& spec, const WorkerCheck& r) {
    if (spec == adding_) {
        adding_.clear();
        add_->setEnabled(true);
        if (!r.ok) return set_status(tr("Not added: %1").arg(r.message), true);
        model_->add(spec);
        model_->set_check(spec, r);
        spec_->clear();
        list_->setCurrentIndex(model_->index(model_->find(spec)));
        Q_EMIT worker_added(spec);
    }
    if (!r.ok) return set_status(r.message, true);
    set_status(r.device.isEmpty()
                   ? tr("%1 answers: tilec %2 on %3, no GPU there (%4): runs there use its CPU").arg(spec, r.version, r.host, r.no_gpu_why)
                   : tr("%1 answers: tilec %2 on %3 with %4 (%5)").arg(spec, r.version, r.host, r.device, r.target),
               false);
}

void RemoteWorkersDialog::set_status(const QString& text, bool error) {
    status_->setText(text);
    status_->setStyleSheet(error ? "color: #d04040;" : QString());
}

QString RemoteWorkersDialog::status_text() const { return status_->text(); }

QString RemoteWorkersDialog::selected() const {
    const QModelIndex i = list_->currentIndex();
    return i.isValid() ? i.data(RemoteWorkersModel::SpecRole).toString() : QString();
}

void RemoteWorkersDialog::update_buttons() {
    const bool any = list_->currentIndex().isValid();
    check_->setEnabled(any);
    remove_->setEnabled(any);
}

}  // namespace tpui
