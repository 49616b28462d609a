// ChartsPanel: derives bars and points from SweepModel rows on every insert.
#include "panels/charts/charts_panel.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QMessageBox>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <map>
#include <set>

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
    latency_->setObjectName("chart_latency");
    tflops_->setObjectName("chart_tflops");
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
    for (BarChart* c : {latency_, tflops_})
        connect(c, &BarChart::barClicked, this, [this](int key) {
            if (key >= 0 && size_t(key) < shown_.size()) Q_EMIT configChosen(shown_[size_t(key)].params, shown_[size_t(key)].config);
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

QString ChartsPanel::short_name(const QString& param) {
    const QStringList parts = param.split('_', Qt::SkipEmptyParts);
    if (parts.size() < 2) return param;
    QString s;
    for (qsizetype i = 0; i < parts.size(); ++i)
        s += i + 1 == parts.size() && parts[i].size() <= 2 ? parts[i] : parts[i].left(1);
    return s;
}

namespace {

// The parameters whose values differ between the rows: what a bar's label names.
QStringList varying_params(const std::vector<RunResult>& rows) {
    QStringList names;
    std::map<QString, QString> first;
    std::set<QString> varies;
    for (const auto& r : rows)
        for (const auto& [k, v] : r.params) {
            if (!first.count(k)) {
                first[k] = v;
                names << k;
            } else if (first[k] != v) {
                varies.insert(k);
            }
        }
    QStringList out;
    for (const auto& n : names)
        if (varies.count(n)) out << n;
    return out;
}

// Three or more parameters vary: a bar is named by its values alone ("128/256/64/3"), the axis
// title giving the key ("bM/bN/bK/ns"), so a rotated label fits a short dock; fewer: "bM=128".
bool values_only(const QStringList& varying) { return varying.size() >= 3; }

QString short_value(const QString& v) { return v == "True" ? "T" : v == "False" ? "F" : v; }

QString bar_label(const RunResult& r, const QStringList& varying) {
    QStringList parts;
    for (const auto& [k, v] : r.params)
        if (varying.contains(k)) parts << (values_only(varying) ? short_value(v) : ChartsPanel::short_name(k) + "=" + v);
    return parts.isEmpty() ? r.config : parts.join(values_only(varying) ? "/" : " ");
}

QString label_key(const QStringList& varying) {
    if (!values_only(varying)) return QString();
    QStringList names;
    for (const auto& n : varying) names << ChartsPanel::short_name(n);
    return names.join('/');
}

QString bar_tooltip(const RunResult& r) {
    QString t = r.config + "\n" + QStringLiteral("%1 ms").arg(r.median_ms, 0, 'g', 4);
    if (r.tflops > 0) t += QStringLiteral(", %1 TFLOP/s").arg(r.tflops, 0, 'f', 1);
    if (r.gbps > 0) t += QStringLiteral(", %1 GB/s").arg(r.gbps, 0, 'f', 0);
    if (const BaselineTime* b = r.best_peer(); b && b->ratio > 0) t += "\n" + ResultsModel::ratio_text(*b) + " vs " + b->name;
    return t;
}

}  // namespace

void ChartsPanel::refresh() {
    std::vector<Bar> lat, tf;
    std::vector<RoofPoint> pts;
    const auto rows = model_->sorted_by_latency();
    const QStringList varying = varying_params(rows);
    for (size_t i = 0; i < rows.size(); ++i) {
        const RunResult& r = rows[i];
        const QString label = bar_label(r, varying), tip = bar_tooltip(r);
        lat.push_back({label, r.median_ms, tip, int(i)});
        if (r.tflops > 0) tf.push_back({label, r.tflops, tip, int(i)});
        if (r.tflops > 0 && r.arithmetic_intensity() > 0) pts.push_back({label, r.arithmetic_intensity(), r.tflops});
    }
    shown_ = rows;
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
    for (BarChart* c : {latency_, tflops_}) c->set_label_key(label_key(varying));
    latency_->set_data(std::move(lat), std::move(lat_refs));
    tflops_->set_data(std::move(tf), std::move(tf_refs));
    // The best config's ratio to the best peer, measured beside it in one alternating call. A
    // sweep on the CPU checked its configs but timed none: the charts say so instead of
    // drawing the interpreter's times as if they were the GPU's.
    int cpu = 0, cpu_ok = 0;
    for (const auto& r : model_->rows())
        if (r.cpu) ++cpu, cpu_ok += r.ok && r.correct ? 1 : 0;
    const QString note = rows.empty() && cpu > 0
                             ? tr("CPU sweep: %1 of %2 configurations ran and passed their check on the interpreter; latency and "
                                  "TFLOP/s need a GPU (Run on: GPU)")
                                   .arg(cpu_ok)
                                   .arg(cpu)
                             : model_->best_peer_summary();
    latency_->set_note(note);
    tflops_->set_note(note);
    roofline_->set_points(std::move(pts));
    // Nothing drawn yet: an export would write blank axes.
    const bool any = !rows.empty();
    for (QToolButton* b : {png_, csv_}) {
        b->setEnabled(any);
        b->setToolTip(any ? QString() : tr("Run a Sweep (or a Benchmark) on a GPU first: there is nothing to export yet"));
    }
}

bool ChartsPanel::export_png(const QString& path) {
    auto* c = qobject_cast<ChartWidget*>(tabs_->currentWidget());
    return c && !shown_.empty() && c->save_png(path);
}

bool ChartsPanel::export_csv(const QString& path) {
    auto* c = qobject_cast<ChartWidget*>(tabs_->currentWidget());
    return c && !shown_.empty() && c->save_csv(path);
}

}  // namespace tpui
