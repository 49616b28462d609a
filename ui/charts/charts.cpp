// Qt Charts behind the interface in charts.h. Charts are rebuilt from the data on every
// change (a sweep has tens of rows), which keeps the code free of incremental-update state.
#include "charts/charts.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFile>
#include <QFont>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace tpui {

namespace {

QString csv_quote(QString s) {
    if (s.contains(',') || s.contains('"')) s = '"' + s.replace("\"", "\"\"") + '"';
    return s;
}

void style_axis(QAbstractAxis* a, const Theme& t) {
    a->setLabelsColor(t.text);
    a->setTitleBrush(t.text);
    a->setGridLineColor(t.grid);
    a->setLinePenColor(t.grid);
}

}  // namespace

ChartWidget::ChartWidget(QWidget* parent) : QWidget(parent), theme_(&dark_theme()) {
    chart_ = new QChart;
    view_ = new QChartView(chart_);
    view_->setRenderHint(QPainter::Antialiasing);
    // In a quarter-height dock every pixel counts: thin chart margins.
    chart_->setMargins(QMargins(4, 4, 4, 4));
    placeholder_ = new QLabel;
    placeholder_->setAlignment(Qt::AlignCenter);
    placeholder_->setEnabled(false);  // dimmed text in the app palette of either theme
    stack_ = new QStackedWidget;
    stack_->addWidget(view_);
    stack_->addWidget(placeholder_);
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(0, 0, 0, 0);
    l->addWidget(stack_);
}

namespace {
constexpr int kTitleMinHeight = 320;
}

void ChartWidget::set_title(const QString& title) {
    title_text_ = title;
    chart_->setTitle(height() >= kTitleMinHeight ? title_text_ : QString());
}

void ChartWidget::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    chart_->setTitle(height() >= kTitleMinHeight ? title_text_ : QString());
    if (stale()) rebuild();
}

int ChartWidget::value_ticks() const { return std::clamp(view_->height() / 45, 2, 6); }

// The smallest of 1, 2, 2.5, 5 x 10^k that is at least `raw`.
double ChartWidget::nice_step(double raw) {
    if (raw <= 0) return 1;
    double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
        if (m * mag >= raw * (1 - 1e-9)) return m * mag;
    return 10 * mag;
}

void ChartWidget::set_placeholder(const QString& text) {
    placeholder_->setText(text);
    stack_->setCurrentWidget(text.isEmpty() ? static_cast<QWidget*>(view_) : placeholder_);
}

void ChartWidget::apply_theme(const Theme& t) {
    theme_ = &t;
    rebuild();
}

bool ChartWidget::save_png(const QString& path, QSize size) {
    QSize old = view_->size();
    chart_->setTitle(title_text_);
    view_->resize(size);
    QPixmap pm(size);
    pm.fill(theme_->base);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    view_->render(&p);
    p.end();
    view_->resize(old);
    chart_->setTitle(height() >= kTitleMinHeight ? title_text_ : QString());
    return pm.save(path, "PNG");
}

bool ChartWidget::save_csv(const QString& path) const {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text)) return false;
    return f.write(to_csv().toUtf8()) >= 0;
}

BarChart::BarChart(QString title, QString axis_title, bool lower_is_better, QWidget* parent)
    : ChartWidget(parent), title_(std::move(title)), axis_(std::move(axis_title)), lower_better_(lower_is_better) {
    rebuild();
}

void BarChart::set_note(const QString& note) {
    if (note == note_) return;
    note_ = note;
    rebuild();
}

// Where the value axis ends. Lower-is-better values run from the best to configurations tens
// of times slower: the axis stops at twice the larger of the slowest peer and the median bar
// (and never below the median's double), so the peers' lines and the best bars stay readable.
double BarChart::axis_top(double vmax) const {
    if (!lower_better_ || bars_.size() < 4) return vmax;
    double peaks = 0;
    for (const auto& r : refs_) peaks = std::max(peaks, r.value);
    const double median = bars_[bars_.size() / 2].value;  // bars_ is sorted
    const double cap = 2 * std::max(peaks, median);
    return vmax > cap * 1.25 ? cap : vmax;  // clip only real outliers
}

void BarChart::click_bar(int i) {
    if (i >= 0 && size_t(i) < bars_.size()) Q_EMIT barClicked(bars_[size_t(i)].key);
}

void BarChart::set_label_key(const QString& key) {
    if (key == label_key_) return;
    label_key_ = key;
    rebuild();
}

void BarChart::set_data(std::vector<Bar> bars, std::vector<ReferenceLine> refs) {
    std::stable_sort(bars.begin(), bars.end(), [this](const Bar& a, const Bar& b) {
        return lower_better_ ? a.value < b.value : a.value > b.value;
    });
    bars_ = std::move(bars);
    refs_ = std::move(refs);
    rebuild();
}

QString BarChart::to_csv() const {
    QString out = "label," + csv_quote(axis_) + ",kind\n";
    for (const auto& b : bars_) out += csv_quote(b.label) + "," + QString::number(b.value, 'g', 8) + ",config\n";
    for (const auto& r : refs_) out += csv_quote(r.name) + "," + QString::number(r.value, 'g', 8) + ",reference\n";
    return out;
}

size_t BarChart::bars_that_fit() const {
    const size_t across = size_t(std::max(view_->width(), 1) / 18);
    return std::max<size_t>(12, view_->height() >= 420 ? across : std::min<size_t>(across, 40));
}

bool BarChart::stale() const {
    return ChartWidget::stale() || (shown_ && shown_ != std::min(bars_.size(), bars_that_fit()));
}

void BarChart::rebuild() {
    const Theme& t = *theme_;
    chart_->removeAllSeries();
    for (auto* a : chart_->axes()) chart_->removeAxis(a), delete a;
    set_title(note_.isEmpty() ? title_ : title_ + QStringLiteral(" — ") + note_);
    // Empty: the note (a CPU sweep's, say) tells why before the generic hint does.
    set_placeholder(!bars_.empty() ? QString() : !note_.isEmpty() ? note_ : tr("%1: run a sweep (Ctrl+Alt+S) to fill this chart").arg(title_));
    chart_->setBackgroundBrush(t.base);
    chart_->setTitleBrush(t.text);
    chart_->legend()->setLabelColor(t.text);
    chart_->legend()->setAlignment(Qt::AlignRight);  // beside the plot: height is scarce, width is not
    chart_->legend()->setVisible(!refs_.empty());     // one bar series needs no legend
    chart_->setAnimationOptions(QChart::NoAnimation);

    auto* set = new QBarSet(axis_);
    set->setColor(t.chart_bar);
    set->setBorderColor(t.chart_bar);
    QStringList cats;
    double vmax = 0;
    // Sorted best first: what does not fit is the slowest configurations.
    shown_ = std::min(bars_.size(), bars_that_fit());
    for (size_t i = 0; i < shown_; ++i) vmax = std::max(vmax, bars_[i].value);
    for (const auto& r : refs_) vmax = std::max(vmax, r.value);
    const double top = axis_top(vmax);
    clip_ = top < vmax ? top : 0;
    for (size_t i = 0; i < shown_; ++i) {
        *set << std::min(bars_[i].value, top);
        cats << bars_[i].label;
    }
    connect(set, &QBarSet::hovered, view_, [this](bool on, int i) {
        if (!on || i < 0 || size_t(i) >= bars_.size()) return QToolTip::hideText();
        const Bar& b = bars_[size_t(i)];
        QString text = b.tooltip.isEmpty() ? QStringLiteral("%1: %2 %3").arg(b.label).arg(b.value, 0, 'g', 4).arg(axis_) : b.tooltip;
        if (clip_ > 0 && b.value > clip_) text += tr("\n(bar clipped at %1 %2)").arg(clip_, 0, 'g', 4).arg(axis_);
        QToolTip::showText(QCursor::pos(), text + tr("\nclick: load this configuration"), view_);
    });
    connect(set, &QBarSet::clicked, this, &BarChart::click_bar);
    auto* series = new QBarSeries;
    series->append(set);
    series->setBarWidth(0.7);
    chart_->addSeries(series);
    auto* ax = new QBarCategoryAxis;
    ax->append(cats.isEmpty() ? QStringList{" "} : cats);
    ax->setLabelsAngle(cats.size() > 4 ? -90 : 0);
    // Labels name only what differs between configurations, and every bar drawn has room for
    // one; the rest of a large sweep is in the sweep table (and the CSV export).
    QString axis_title = label_key_;
    if (shown_ < bars_.size())
        axis_title += (axis_title.isEmpty() ? QString() : QStringLiteral(" — ")) +
                      tr("best %1 of %2 configurations (the sweep table lists every one)").arg(shown_).arg(bars_.size());
    ax->setTitleText(axis_title);
    QFont small = ax->labelsFont();
    if (cats.size() > 12) small.setPointSizeF(small.pointSizeF() * 0.8);
    ax->setLabelsFont(small);
    auto* ay = new QValueAxis;
    ay->setTitleText(clip_ > 0 ? tr("%1 (clipped)").arg(axis_) : axis_);
    // As many ticks as the height allows (crowded labels are drawn as "..."), on round steps.
    int ticks = built_ticks_ = value_ticks();
    double step = nice_step((top > 0 ? top * (clip_ > 0 ? 1.0 : 1.08) : 1) / (ticks - 1));
    ay->setRange(0, step * (ticks - 1));
    ay->setTickCount(ticks);
    ay->setLabelFormat(step < 0.01 ? "%.2e" : step < 1 ? "%.2f" : "%.0f");
    chart_->addAxis(ax, Qt::AlignBottom);
    chart_->addAxis(ay, Qt::AlignLeft);
    series->attachAxis(ax);
    series->attachAxis(ay);
    style_axis(ax, t);
    style_axis(ay, t);

    // Reference lines live on their own x axis spanning the category slots.
    if (!refs_.empty()) {
        auto* rx = new QValueAxis;
        int n = std::max<int>(1, int(bars_.size()));
        rx->setRange(-0.5, n - 0.5);
        rx->setVisible(false);
        chart_->addAxis(rx, Qt::AlignTop);
        QColor colours[] = {t.chart_ref1, t.chart_ref2, t.chart_bar2, t.note};
        int i = 0;
        for (const auto& r : refs_) {
            auto* line = new QLineSeries;
            line->setName(QStringLiteral("%1 %2").arg(r.name, QString::number(r.value, 'g', 4)));
            line->append(-0.5, r.value);
            line->append(n - 0.5, r.value);
            QPen pen(colours[i++ % 4]);
            pen.setWidth(2);
            pen.setStyle(Qt::DashLine);
            line->setPen(pen);
            chart_->addSeries(line);
            line->attachAxis(rx);
            line->attachAxis(ay);
        }
    }
}

RooflineChart::RooflineChart(QWidget* parent) : ChartWidget(parent) { rebuild(); }

void RooflineChart::set_roofs(const QString& gpu, double peak_tflops, double dram_gbs) {
    gpu_ = gpu;
    peak_ = peak_tflops;
    bw_ = dram_gbs;
    rebuild();
}

void RooflineChart::set_points(std::vector<RoofPoint> points) {
    points_ = std::move(points);
    rebuild();
}

QString RooflineChart::to_csv() const {
    QString out = "label,flop_per_byte,tflops,roof_tflops\n";
    for (const auto& p : points_) {
        double roof = std::min(peak_, bw_ * p.intensity / 1000.0);
        out += csv_quote(p.label) + "," + QString::number(p.intensity, 'g', 8) + "," + QString::number(p.tflops, 'g', 8) + "," +
               QString::number(roof, 'g', 8) + "\n";
    }
    return out;
}

void RooflineChart::rebuild() {
    const Theme& t = *theme_;
    chart_->removeAllSeries();
    for (auto* a : chart_->axes()) chart_->removeAxis(a), delete a;
    set_title(gpu_.isEmpty() ? tr("Roofline") : tr("Roofline — %1 (%2 TFLOP/s fp16, %3 GB/s)").arg(gpu_).arg(peak_).arg(bw_));
    chart_->setBackgroundBrush(t.base);
    chart_->setTitleBrush(t.text);
    chart_->legend()->setLabelColor(t.text);
    chart_->legend()->setAlignment(Qt::AlignRight);
    chart_->setAnimationOptions(QChart::NoAnimation);

    auto* ax = new QLogValueAxis;
    ax->setTitleText(tr("arithmetic intensity (FLOP/byte)"));
    ax->setBase(10);
    ax->setLabelFormat("%g");
    auto* ay = new QLogValueAxis;
    ay->setTitleText(tr("TFLOP/s"));
    ay->setBase(10);
    ay->setLabelFormat("%g");
    double xmin = 0.1, xmax = 10000, ymin = 0.01, ymax = std::max(peak_ * 2, 10.0);
    for (const auto& p : points_) {
        if (p.intensity > 0) xmin = std::min(xmin, p.intensity / 2), xmax = std::max(xmax, p.intensity * 2);
        if (p.tflops > 0) ymin = std::min(ymin, p.tflops / 2);
    }
    ax->setRange(xmin, xmax);
    ay->setRange(ymin, ymax);
    chart_->addAxis(ax, Qt::AlignBottom);
    chart_->addAxis(ay, Qt::AlignLeft);
    style_axis(ax, t);
    style_axis(ay, t);

    if (peak_ > 0 && bw_ > 0) {
        auto* roof = new QLineSeries;
        roof->setName(tr("roof: min(peak, bandwidth x intensity)"));
        // TFLOP/s = GB/s * FLOP/byte / 1000; sampled densely around the ridge point.
        for (double x = xmin; x <= xmax * 1.0001; x *= 1.25) roof->append(x, std::min(peak_, bw_ * x / 1000.0));
        QPen pen(t.chart_ref1);
        pen.setWidth(2);
        roof->setPen(pen);
        chart_->addSeries(roof);
        roof->attachAxis(ax);
        roof->attachAxis(ay);
    }
    auto* pts = new QScatterSeries;
    pts->setName(tr("configurations"));
    pts->setMarkerSize(10);
    pts->setColor(t.chart_bar);
    pts->setBorderColor(t.text);
    for (const auto& p : points_)
        if (p.intensity > 0 && p.tflops > 0) pts->append(p.intensity, p.tflops);
    chart_->addSeries(pts);
    pts->attachAxis(ax);
    pts->attachAxis(ay);
}

}  // namespace tpui
