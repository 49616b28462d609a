// ParametersPanel: fields are rebuilt when the model resets (another factory or new params)
// and write back through setData, which validates per kind.
#include "panels/parameters/parameters_panel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QSignalBlocker>
#include <QHBoxLayout>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>

#include "models/parameters_model.h"

namespace tpui {

ParametersPanel::ParametersPanel(ParametersModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    auto* top = new QFormLayout;
    kernel_ = new QComboBox;
    target_ = new QComboBox;
    for (const auto& t : tp::supported_targets()) target_->addItem(QString::fromStdString(t));
    device_ = new QComboBox;
    device_->setObjectName("run_on");
    set_remote_workers({});
    top->addRow(tr("Kernel"), kernel_);
    top->addRow(tr("Target"), target_);
    top->addRow(tr("Run on"), device_);
    fields_ = new QFormLayout;
    auto* l = new QVBoxLayout(this);
    l->addLayout(top);
    auto* sep = new QLabel(tr("<b>Parameters</b>"));
    l->addWidget(sep);
    l->addLayout(fields_);
    note_ = new QLabel;
    note_->setObjectName("parameters_note");
    note_->setWordWrap(true);
    note_->hide();
    l->addWidget(note_);
    l->addStretch(1);
    connect(kernel_, &QComboBox::currentTextChanged, this, [this](const QString& k) {
        if (!updating_) Q_EMIT kernel_changed(k);
    });
    connect(target_, &QComboBox::currentTextChanged, this, [this] {
        if (!updating_) Q_EMIT settings_changed();
    });
    connect(device_, &QComboBox::currentIndexChanged, this, [this](int index) {
        if (updating_) return;
        // "Add remote worker..." is a command, not a place: go back to where runs were going.
        if (device_->itemData(index).toString() == "add") {
            QSignalBlocker block(device_);
            device_->setCurrentIndex(std::max(0, device_->findData(last_run_on_)));
            Q_EMIT add_worker_requested();
            return;
        }
        last_run_on_ = run_on();
        Q_EMIT settings_changed();
    });
    connect(model_, &QAbstractItemModel::modelReset, this, &ParametersPanel::rebuild_fields);
    connect(model_, &QAbstractItemModel::dataChanged, this, [this](const QModelIndex& from, const QModelIndex& to) {
        for (int row = from.row(); row <= to.row(); ++row) mark_row(row);
    });
    connect(model_, &ParametersModel::values_edited, this, &ParametersPanel::settings_changed);
}

void ParametersPanel::set_factories(const std::vector<tp::FactoryInfo>& fs, const QString& current) {
    updating_ = true;
    QStringList names;
    for (const auto& f : fs) names << QString::fromStdString(f.name);
    QStringList old;
    for (int i = 0; i < kernel_->count(); ++i) old << kernel_->itemText(i);
    if (names != old) {
        kernel_->clear();
        kernel_->addItems(names);
    }
    if (!current.isEmpty()) kernel_->setCurrentText(current);
    kernel_->setEnabled(names.size() > 1);
    updating_ = false;
}

QString ParametersPanel::kernel() const { return kernel_->currentText(); }
QString ParametersPanel::target() const { return target_->currentText(); }
void ParametersPanel::set_target(const QString& t) { target_->setCurrentText(t); }
bool ParametersPanel::cpu() const { return run_on() == "cpu"; }
void ParametersPanel::set_cpu(bool cpu) { set_run_on(cpu ? "cpu" : "gpu"); }
QString ParametersPanel::run_on() const { return device_->currentData().toString(); }

void ParametersPanel::set_local_gpus(int count, const std::vector<std::pair<QString, QString>>& workers) {
    local_gpus_ = count;
    set_remote_workers(workers);
}

bool ParametersPanel::set_run_on(const QString& where) {
    const int i = device_->findData(where);
    if (i < 0 || where == "add") return false;
    device_->setCurrentIndex(i);
    last_run_on_ = where;
    return true;
}

// The places a run can go: this machine's GPU (through a local worker) or CPU, each remote
// worker the user added, all of them as a pool when there are several, and the command that
// adds one. The choice survives a rebuild when it is still listed, else runs go to the GPU.
void ParametersPanel::set_remote_workers(const std::vector<std::pair<QString, QString>>& workers) {
    const QString keep = device_->count() ? run_on() : QString("gpu");
    {
        QSignalBlocker block(device_);
        device_->clear();
        device_->addItem(local_gpus_ > 1 ? tr("GPU 0 (local worker; Tune: all %1)").arg(local_gpus_) : tr("GPU (local worker)"), "gpu");
        // With several GPUs here, each can be chosen alone (its worker pinned to it).
        for (int g = 1; g < local_gpus_; ++g) device_->addItem(tr("GPU %1 (local worker)").arg(g), QString("gpu:%1").arg(g));
        device_->addItem(tr("CPU"), "cpu");  // the LLVM JIT where built, else the interpreter: Results names which ran
        for (const auto& [spec, label] : workers) device_->addItem(label.isEmpty() ? spec : label, spec);
        if (workers.size() > 1) {
            device_->addItem(tr("All %1 remote workers (pool)").arg(workers.size()), "pool");
            device_->setItemData(device_->count() - 1,
                                 tr("Tune spreads its configurations over every remote worker; Run, Benchmark "
                                    "and Sweep go to the first"),
                                 Qt::ToolTipRole);
        }
        device_->insertSeparator(device_->count());
        device_->addItem(tr("Add remote worker…"), "add");
        device_->setItemData(device_->count() - 1, tr("A GPU elsewhere: ssh://[user@]HOST[:PORT][/path/to/tilec] or slurm:PARTITION"),
                             Qt::ToolTipRole);
        const int i = device_->findData(keep);
        device_->setCurrentIndex(i >= 0 && keep != "add" ? i : 0);
    }
    last_run_on_ = run_on();
    if (last_run_on_ != keep && !updating_) Q_EMIT settings_changed();
}

// A value that differs from the file's is marked (bold name, a dot) and gets a reset button;
// the field shows the model's value (after a reset, the file's again).
void ParametersPanel::mark_row(int row) {
    if (row < 0 || row >= int(rows_.size())) return;
    const RowWidgets& w = rows_[size_t(row)];
    QModelIndex idx = model_->index(row, ParametersModel::Value);
    const bool changed = idx.data(ParametersModel::OverriddenRole).toBool();
    const QString name = model_->index(row, ParametersModel::Name).data().toString();
    w.label->setText(changed ? QStringLiteral("<b>%1</b> •").arg(name.toHtmlEscaped()) : name.toHtmlEscaped());
    w.label->setToolTip(idx.data(Qt::ToolTipRole).toString());
    w.reset->setVisible(changed);
    w.reset->setToolTip(tr("Back to the file's value, %1").arg(idx.data(ParametersModel::FileValueRole).toString()));
    const QString value = idx.data(Qt::EditRole).toString();
    QSignalBlocker block(w.field);
    if (auto* s = qobject_cast<QSpinBox*>(w.field); s && s->value() != value.toInt()) s->setValue(value.toInt());
    if (auto* c = qobject_cast<QComboBox*>(w.field); c && c->currentText() != value) c->setCurrentText(value);
    if (auto* e = qobject_cast<QLineEdit*>(w.field); e && e->text() != value) e->setText(value);
}

void ParametersPanel::set_note(const QString& text) {
    note_->setText(text);
    note_->setVisible(!text.isEmpty());
}

void ParametersPanel::rebuild_fields() {
    while (fields_->rowCount() > 0) fields_->removeRow(0);
    rows_.clear();
    for (int row = 0; row < model_->rowCount(); ++row) {
        QModelIndex idx = model_->index(row, ParametersModel::Value);
        QString kind = idx.data(ParametersModel::KindRole).toString();
        QString name = model_->index(row, ParametersModel::Name).data().toString();
        QString value = idx.data(Qt::EditRole).toString();
        QWidget* w = nullptr;
        QStringList choices = idx.data(ParametersModel::ChoicesRole).toStringList();
        bool int_ok = false;
        qlonglong iv = value.toLongLong(&int_ok);
        if (kind == "int" && (int_ok || value.isEmpty())) {
            auto* s = new QSpinBox;
            s->setRange(std::numeric_limits<int>::min(), std::numeric_limits<int>::max());
            s->setValue(int(iv));
            s->setKeyboardTracking(false);
            connect(s, &QSpinBox::valueChanged, this, [this, idx](int v) { model_->setData(idx, QString::number(v)); });
            w = s;
        } else if (!choices.isEmpty()) {
            auto* c = new QComboBox;
            c->addItems(choices);
            c->setCurrentText(value);
            connect(c, &QComboBox::currentTextChanged, this, [this, idx](const QString& v) { model_->setData(idx, v); });
            w = c;
        } else {
            auto* e = new QLineEdit(value);
            e->setEnabled(kind != "tensor");
            connect(e, &QLineEdit::editingFinished, this, [this, idx, e] {
                if (!model_->setData(idx, e->text())) e->setText(idx.data(Qt::EditRole).toString());
            });
            w = e;
        }
        w->setToolTip(idx.data(Qt::ToolTipRole).toString());
        auto* label = new QLabel(name);
        label->setObjectName("param_label_" + name);
        auto* reset = new QToolButton;
        reset->setObjectName("param_reset_" + name);
        reset->setText(QStringLiteral("↺"));
        reset->setAutoRaise(true);
        connect(reset, &QToolButton::clicked, this, [this, name] { model_->reset_value(name); });
        auto* cell = new QWidget;
        auto* h = new QHBoxLayout(cell);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(2);
        h->addWidget(w, 1);
        h->addWidget(reset);
        fields_->addRow(label, cell);
        rows_.push_back({label, reset, w});
        mark_row(row);
    }
}

}  // namespace tpui
