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
#include <algorithm>

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
    l->addStretch(0);  // takes the height while the sweep table is hidden
    // Rows as tall as the text, not Qt's 30 px default: ours and two baselines fit a
    // quarter-height dock without scrolling.
    for (QTableView* t : {results_, sweep_}) {
        t->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
        t->setWordWrap(false);
    }
    connect(cancel_, &QPushButton::clicked, this, &ResultsPanel::cancel_requested);
    connect(results, &QAbstractItemModel::modelReset, this, [this] {
        results_->resizeColumnsToContents();
        fit_tables();
    });
    connect(sweep, &QAbstractItemModel::modelReset, this, &ResultsPanel::fit_tables);
    connect(sweep, &QAbstractItemModel::rowsInserted, this, &ResultsPanel::fit_tables);
    connect(sweep, &QAbstractItemModel::rowsRemoved, this, &ResultsPanel::fit_tables);
    fit_tables();
}

// The run table is exactly as tall as its rows; the sweep table shows only when a sweep has
// rows and then takes the remaining height (an empty table is an empty panel).
void ResultsPanel::fit_tables() {
    int rows = std::max(1, results_->model()->rowCount());
    results_->setFixedHeight(results_->horizontalHeader()->sizeHint().height() + rows * results_->verticalHeader()->defaultSectionSize() +
                             2 * results_->frameWidth());
    bool sweeping = sweep_->model()->rowCount() > 0;
    sweep_->setVisible(sweeping);
    if (sweeping) {
        // Configs are long ("block_M=128 block_N=256 ... threads=256"): show them whole.
        sweep_->resizeColumnToContents(0);
        sweep_->setColumnWidth(0, std::min(sweep_->columnWidth(0), std::max(200, width() / 2)));
    }
    results_->setVisible(!sweeping || results_->model()->rowCount() > 0);
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
