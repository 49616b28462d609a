// ChartsPanel: derives bars and points from SweepModel rows on every insert.
#include "panels/charts/charts_panel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "charts/charts.h"
#include "charts/gpu_specs.h"
#include "models/results_model.h"
#include "models/sweep_model.h"

namespace tpui {

ChartsPanel::ChartsPanel(SweepModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    tabs_ = new QTabWidget;
    latency_ = new BarChart(tr("Latency per configuration"), tr("ms"), true);
    tflops_ = new BarChart(tr("Throughput per configuration"), tr("TFLOP/s"), false);
    roofline_ = new RooflineChart;
    tabs_->addTab(latency_, tr("Latency"));
    tabs_->addTab(tflops_, tr("TFLOP/s"));
    tabs_->addTab(roofline_, tr("Roofline"));
    // The export buttons sit beside the tabs, not in a row of their own under the chart.
    auto* png = png_ = new QToolButton;
    png->setObjectName("export_png");
    png->setText(tr("Export PNG…"));
    auto* csv = csv_ = new QToolButton;
    csv->setObjectName("export_csv");
    csv->setText(tr("Export CSV…"));
    auto* corner = new QWidget;
    auto* row = new QHBoxLayout(corner);
    row->setContentsMargins(0, 0, 2, 2);
    row->addWidget(png);
    row->addWidget(csv);
    tabs_->setCornerWidget(corner, Qt::TopRightCorner);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(2, 2, 2, 2);
    l->addWidget(tabs_, 1);
    connect(png, &QToolButton::clicked, this, [this] {
        QString p = QFileDialog::getSaveFileName(this, tr("Export chart"), "chart.png", tr("PNG images (*.png)"));
        if (!p.isEmpty() && !export_png(p)) QMessageBox::warning(this, tr("Export chart"), tr("cannot write `%1`").arg(p));
    });
    connect(csv, &QToolButton::clicked, this, [this] {
        QString p = QFileDialog::getSaveFileName(this, tr("Export data"), "sweep.csv", tr("CSV files (*.csv)"));
        if (!p.isEmpty() && !export_csv(p)) QMessageBox::warning(this, tr("Export data"), tr("cannot write `%1`").arg(p));
    });
    connect(model_, &QAbstractItemModel::rowsInserted, this, &ChartsPanel::refresh);
    connect(model_, &QAbstractItemModel::modelReset, this, &ChartsPanel::refresh);
    connect(model_, &SweepModel::peersChanged, this, &ChartsPanel::refresh);
    set_target("sm_90a");
    refresh();
}

void ChartsPanel::set_target(const QString& target) {
    GpuRoofs r = roofs_for_target(target);
    roofline_->set_roofs(QStringLiteral("%1, %2").arg(r.gpu, target), r.peak_tflops, r.dram_gbs);
}

void ChartsPanel::apply_theme(const Theme& t) {
    latency_->apply_theme(t);
    tflops_->apply_theme(t);
    roofline_->apply_theme(t);
}

void ChartsPanel::refresh() {
    std::vector<Bar> lat, tf;
    std::vector<RoofPoint> pts;
    for (const auto& r : model_->sorted_by_latency()) {
        lat.push_back({r.config, r.median_ms});
        if (r.tflops > 0) tf.push_back({r.config, r.tflops});
        if (r.tflops > 0 && r.arithmetic_intensity() > 0) pts.push_back({r.config, r.arithmetic_intensity(), r.tflops});
    }
    std::vector<ReferenceLine> lat_refs, tf_refs;
    double flops = -1;
    for (const auto& r : model_->rows())
        if (r.flops > 0) flops = r.flops;
    for (const auto& b : model_->baselines()) {
        if (b.median_ms <= 0) continue;
        // The best peer's legend entry carries the best config's ratio to it (timed beside it
        // in one call): the title that also says so is hidden in a short dock.
        QString name = b.best && b.ratio > 0 ? tr("%1 (best config %2)").arg(b.name, ResultsModel::ratio_text(b)) : b.name;
        lat_refs.push_back({name, b.median_ms});
        if (flops > 0) tf_refs.push_back({name, flops / (b.median_ms * 1e-3) / 1e12});
    }
    latency_->set_data(std::move(lat), std::move(lat_refs));
    tflops_->set_data(std::move(tf), std::move(tf_refs));
    // The best config's ratio to the best peer, measured beside it in one alternating call.
    latency_->set_note(model_->best_peer_summary());
    tflops_->set_note(model_->best_peer_summary());
    roofline_->set_points(std::move(pts));
    // Nothing measured yet: an export would write blank axes.
    const bool any = model_->rowCount() > 0;
    for (QToolButton* b : {png_, csv_}) {
        b->setEnabled(any);
        b->setToolTip(any ? QString() : tr("Run a Sweep (or a Benchmark) first: there is nothing to export yet"));
    }
}

bool ChartsPanel::export_png(const QString& path) {
    auto* c = qobject_cast<ChartWidget*>(tabs_->currentWidget());
    return c && model_->rowCount() > 0 && c->save_png(path);
}

bool ChartsPanel::export_csv(const QString& path) {
    auto* c = qobject_cast<ChartWidget*>(tabs_->currentWidget());
    return c && model_->rowCount() > 0 && c->save_csv(path);
}

}  // namespace tpui
