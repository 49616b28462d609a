// ResultsPanel: the sweep table is sortable through a proxy (Latency sorts by the raw value).
#include "panels/results/results_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include "models/results_model.h"
#include "models/sweep_model.h"

namespace tpui {

ResultsPanel::ResultsPanel(ResultsModel* results, SweepModel* sweep, QWidget* parent) : QWidget(parent) {
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(4, 4, 4, 4);
    auto* row = new QHBoxLayout;
    status_ = new QLabel(tr("Ctrl+Enter runs the kernel, Ctrl+B benchmarks it"));
    status_->setObjectName("results_status");
    status_->setWordWrap(true);
    bar_ = new QProgressBar;
    bar_->setMaximumWidth(220);
    bar_->setVisible(false);
    cancel_ = new QPushButton(tr("Cancel"));
    cancel_->setEnabled(false);
    row->addWidget(status_, 1);
    row->addWidget(bar_);
    row->addWidget(cancel_);
    l->addLayout(row);
    results_ = new QTableView;
    results_->setObjectName("results_table");
    results_->setModel(results);
    results_->verticalHeader()->hide();
    results_->horizontalHeader()->setStretchLastSection(true);
    results_->setMaximumHeight(130);
    l->addWidget(results_);
    auto* proxy = new QSortFilterProxyModel(this);
    proxy->setSourceModel(sweep);
    sweep_ = new QTableView;
    sweep_->setObjectName("sweep_table");
    sweep_->setModel(proxy);
    sweep_->setSortingEnabled(true);
    sweep_->verticalHeader()->hide();
    sweep_->horizontalHeader()->setStretchLastSection(true);
    l->addWidget(sweep_, 1);
    connect(cancel_, &QPushButton::clicked, this, &ResultsPanel::cancel_requested);
    connect(results, &QAbstractItemModel::modelReset, results_, &QTableView::resizeColumnsToContents);
}

void ResultsPanel::job_started(const QString& what, int total) {
    died_.clear();
    status_->setText(tr("%1 …").arg(what));
    bar_->setRange(0, total > 1 ? total : 0);
    bar_->setValue(0);
    bar_->setVisible(true);
    cancel_->setEnabled(true);
}

void ResultsPanel::progress(int done, int total, const QString& message) {
    if (total > 1) bar_->setRange(0, total), bar_->setValue(done);
    status_->setText(message);
}

void ResultsPanel::job_finished(bool ok, const QString& message) {
    bar_->setVisible(false);
    cancel_->setEnabled(false);
    show_message(died_.isEmpty() ? message : tr("%1 — %2").arg(message, died_), !ok || !died_.isEmpty());
}

void ResultsPanel::worker_died(const QString& why) {
    died_ = tr("%1; a fresh worker takes over", "worker died").arg(why);
    show_message(died_, true);
}

void ResultsPanel::show_message(const QString& message, bool error) {
    status_->setText(error ? QStringLiteral("<span style='color:#f0524f'>%1</span>").arg(message.toHtmlEscaped()) : message.toHtmlEscaped());
}

}  // namespace tpui
