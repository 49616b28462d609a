// Our small chart interface over Qt Charts: sorted bars with reference lines (latency or
// TFLOP/s per configuration against cuBLAS/PyTorch) and a roofline. Callers never touch Qt
// Charts types; every chart exports PNG and CSV and follows the theme.
#pragma once

#include <QString>
#include <QWidget>
#include <vector>

#include "theme.h"

class QChart;
class QChartView;
class QLabel;
class QStackedWidget;

namespace tpui {

struct Bar {
    QString label;    // under the bar: what sets this configuration apart
    double value = 0;
    QString tooltip;  // on hover: the full configuration and its figures (empty: label and value)
    int key = -1;     // the caller's id, given back by barClicked
};
struct ReferenceLine {
    QString name;
    double value = 0;
};
struct RoofPoint {
    QString label;
    double intensity = 0;  // FLOP per byte
    double tflops = 0;
};

class ChartWidget : public QWidget {
    Q_OBJECT
public:
    explicit ChartWidget(QWidget* parent = nullptr);
    bool save_png(const QString& path, QSize size = {1200, 700});
    bool save_csv(const QString& path) const;
    virtual QString to_csv() const = 0;
    virtual void apply_theme(const Theme& t);

protected:
    virtual void rebuild() = 0;
    void resizeEvent(QResizeEvent* e) override;
    // Whether the view's new size asks for another layout than the last rebuild made.
    virtual bool stale() const { return built_ticks_ && value_ticks() != built_ticks_; }
    // The chart's title, drawn only when the chart is tall enough to spare the line (a
    // quarter-height dock is not; the dock's tab names the chart) and always in exports.
    void set_title(const QString& title);
    int value_ticks() const;  // ticks the value axis has room for at the view's height
    static double nice_step(double raw);
    // A chart with nothing to plot shows `text` instead of empty axes; empty text: the chart.
    void set_placeholder(const QString& text);
    QChart* chart_;
    QChartView* view_;
    QLabel* placeholder_;
    QStackedWidget* stack_;
    const Theme* theme_;
    QString title_text_;
    int built_ticks_ = 0;  // value_ticks() at the last rebuild (0: not tick-dependent)
};

class BarChart : public ChartWidget {
    Q_OBJECT
public:
    BarChart(QString title, QString axis_title, bool lower_is_better, QWidget* parent = nullptr);
    // Bars are shown sorted (best first); references are drawn as horizontal lines.
    void set_data(std::vector<Bar> bars, std::vector<ReferenceLine> refs);
    // A line under the title (the best config's ratio to the best peer); empty: none.
    void set_note(const QString& note);
    // The category axis's title: the key to the bar labels (which parameters the values are).
    void set_label_key(const QString& key);
    const QString& note() const { return note_; }
    const std::vector<Bar>& bars() const { return bars_; }
    // Lower-is-better charts clip the value axis above the peers and the bulk of the bars, so
    // one slow configuration does not flatten the rest: the axis top, or 0 when not clipped.
    double clip_value() const { return clip_; }
    QString to_csv() const override;
    // A click on bar i (in the order bars() lists them).
    void click_bar(int i);
    // Bars drawn: the best that the plot can name (about 18 px a bar across its width, at most
    // 40 while it is short); more configurations than that show the best of them, and the
    // category axis says how many the sweep table holds.
    size_t shown() const { return shown_; }

Q_SIGNALS:
    void barClicked(int key);

protected:
    void rebuild() override;
    bool stale() const override;

private:
    double axis_top(double vmax) const;
    size_t bars_that_fit() const;
    size_t shown_ = 0;
    QString title_, axis_, note_, label_key_;
    double clip_ = 0;
    bool lower_better_;
    std::vector<Bar> bars_;
    std::vector<ReferenceLine> refs_;
};

class RooflineChart : public ChartWidget {
    Q_OBJECT
public:
    explicit RooflineChart(QWidget* parent = nullptr);
    void set_roofs(const QString& gpu, double peak_tflops, double dram_gbs);
    void set_points(std::vector<RoofPoint> points);
    const std::vector<RoofPoint>& points() const { return points_; }
    QString to_csv() const override;

protected:
    void rebuild() override;

private:
    QString gpu_;
    double peak_ = 0, bw_ = 0;
    std::vector<RoofPoint> points_;
};

}  // namespace tpui
