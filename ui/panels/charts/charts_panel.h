// The Charts dock: latency and TFLOP/s per configuration (sorted, baselines as reference
// lines) and the roofline for the selected target, redrawn as sweep rows arrive; PNG and CSV
// export of the visible chart.
#pragma once

#include <QWidget>

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

private:
    SweepModel* model_;
    QTabWidget* tabs_;
    QToolButton* png_ = nullptr;
    QToolButton* csv_ = nullptr;
    BarChart* latency_;
    BarChart* tflops_;
    RooflineChart* roofline_;
};

}  // namespace tpui
