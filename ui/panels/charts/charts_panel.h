// The Charts dock: latency and TFLOP/s per configuration (sorted, baselines as reference
// lines, each bar named by what sets its configuration apart) and the roofline for the
// selected target, redrawn as sweep rows arrive; a click on a bar offers its configuration to
// the parameters; PNG and CSV export of the visible chart.
#pragma once

#include <QWidget>
#include <utility>
#include <vector>

#include "models/run_result.h"

class QTabWidget;
class QToolButton;

namespace tpui {

class BarChart;
class RooflineChart;
class SweepModel;
struct Theme;

class ChartsPanel : public QWidget {
    Q_OBJECT
public:
    ChartsPanel(SweepModel* model, QWidget* parent = nullptr);
    void set_target(const QString& target);
    void apply_theme(const Theme& t);
    void refresh();
    bool export_png(const QString& path);
    bool export_csv(const QString& path);
    // "block_M" -> "bM", "num_stages" -> "ns": bar labels stay short; tooltips say it in full.
    static QString short_name(const QString& param);

Q_SIGNALS:
    // A bar was clicked: load this configuration's parameters.
    void configChosen(const std::vector<std::pair<QString, QString>>& params, const QString& config);

private:
    SweepModel* model_;
    QTabWidget* tabs_;
    QToolButton* png_ = nullptr;
    QToolButton* csv_ = nullptr;
    BarChart* latency_;
    BarChart* tflops_;
    RooflineChart* roofline_;
    std::vector<RunResult> shown_;  // the rows the bars show, by Bar::key
};

}  // namespace tpui
