// The Pipeline dock's lane diagram: one row per warp role (or per SM and role for a measured
// timeline), a coloured slice per event along program order or time, waits outlined in red.
// Hovering a slice shows its event and DSL line; clicking it asks to go to that line.
#pragma once

#include <QWidget>

class QPainter;

#include "models/pipeline_lanes.h"

namespace tpui {

class LaneView : public QWidget {
    Q_OBJECT
public:
    explicit LaneView(QWidget* parent = nullptr);

    void set_diagram(const LaneDiagram& d);
    const LaneDiagram& diagram() const { return d_; }
    // The slice under a point of the widget, or null (exposed for tests).
    const LaneSlice* slice_at(const QPoint& p) const;
    QRect slice_rect(int lane, int slice) const;
    QSize sizeHint() const override;

Q_SIGNALS:
    void go_to(int line, int col);

protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent* e) override;  // tooltips
    void mousePressEvent(QMouseEvent* e) override;

private:
    double scale() const;  // pixels per unit of the diagram's x axis
    void paint_legend(QPainter& p);
    void paint_time_axis(QPainter& p);  // measured timelines: ticks in microseconds
    LaneDiagram d_;
    static constexpr int kLabel = 150, kRow = 34, kTop = 24, kGap = 6, kLegend = 22;
};

}  // namespace tpui
