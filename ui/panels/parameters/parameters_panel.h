// The Parameters dock: kernel picker (when the file has several factories), target, where runs
// go (Run on: this machine's GPU or CPU, a remote worker, a pool of them), and one field per factory parameter (spin box for ints, combo for dtypes
// and booleans, text otherwise) bound to ParametersModel.
#pragma once

#include <QWidget>
#include <utility>
#include <vector>

#include "tileplay/compiler.h"

class QComboBox;
class QFormLayout;

class QLabel;
class QToolButton;

namespace tpui {

class ParametersModel;

class ParametersPanel : public QWidget {
    Q_OBJECT
public:
    ParametersPanel(ParametersModel* model, QWidget* parent = nullptr);

    void set_factories(const std::vector<tp::FactoryInfo>& fs, const QString& current);
    QString kernel() const;
    QString target() const;
    void set_target(const QString& t);
    bool cpu() const;  // Run on this machine's CPU (the interpreter)
    void set_cpu(bool cpu);
    // Run on's choice: "gpu", "gpu:N", "cpu", a remote worker's spec (ssh://..., slurm:...) or "pool".
    QString run_on() const;
    bool set_run_on(const QString& where);  // false when `where` is not listed
    // The remote workers Run on lists, each (spec, label); the label may name its GPU.
    void set_remote_workers(const std::vector<std::pair<QString, QString>>& workers);
    // This machine's GPUs: with more than one, Run on lists each ("gpu:N" for N >= 1; "gpu" is
    // GPU 0, and Tune there uses all of them).
    void set_local_gpus(int count, const std::vector<std::pair<QString, QString>>& workers);
    // A line under the parameters saying what a run will use that the fields do not show (the
    // CPU interpreter's sizes); empty hides it.
    void set_note(const QString& text);

Q_SIGNALS:
    void kernel_changed(const QString& name);
    void settings_changed();  // target, device or a parameter value
    void add_worker_requested();  // Run on > Add remote worker...

private:
    QLabel* note_ = nullptr;
    void rebuild_fields();
    void mark_row(int row);
    struct RowWidgets {
        QLabel* label;
        QToolButton* reset;
        QWidget* field;
    };
    std::vector<RowWidgets> rows_;

    ParametersModel* model_;
    QComboBox* kernel_;
    QComboBox* target_;
    QComboBox* device_;
    QFormLayout* fields_;
    bool updating_ = false;
    QString last_run_on_ = "gpu";
    int local_gpus_ = 1;  // the choice before "Add remote worker..." was picked
};

}  // namespace tpui
