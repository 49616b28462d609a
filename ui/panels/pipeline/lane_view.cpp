// LaneView (see lane_view.h).
#include "panels/pipeline/lane_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

namespace tpui {

LaneView::LaneView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setMinimumHeight(kTop + kRow);
}

void LaneView::set_diagram(const LaneDiagram& d) {
    d_ = d;
    // Program order: wide enough for a label in every slice (the scroll area scrolls); a measured
    // timeline fits the width.
    setMinimumWidth(d_.measured() ? 600 : kLabel + 12 + int(d_.end * 52));
    updateGeometry();
    update();
}

QSize LaneView::sizeHint() const { return {900, kTop + int(d_.lanes.size()) * (kRow + kGap) + kLegend + 8}; }

double LaneView::scale() const { return d_.end > 0 ? std::max(1.0, double(width() - kLabel - 12)) / d_.end : 1.0; }

QRect LaneView::slice_rect(int lane, int slice) const {
    const LaneSlice& s = d_.lanes[lane].slices[slice];
    const double k = scale();
    const int x = kLabel + int(s.start * k), w = std::max(2, int(s.duration * k) - 1);
    return {x, kTop + lane * (kRow + kGap), w, kRow};
}

const LaneSlice* LaneView::slice_at(const QPoint& p) const {
    for (int l = 0; l < d_.lanes.size(); ++l)
        for (int i = 0; i < d_.lanes[l].slices.size(); ++i)
            if (slice_rect(l, i).contains(p)) return &d_.lanes[l].slices[i];
    return nullptr;
}

void LaneView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    const QString axis = d_.measured() ? tr("time (us) ->") : tr("program order: before the loop, iterations 0, 1, ..., after it ->");
    p.drawText(QRect(kLabel, 2, width() - kLabel, kTop - 4), Qt::AlignLeft | Qt::AlignVCenter, axis);
    if (d_.measured() && d_.end > 0) paint_time_axis(p);
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() - 1.5));
    for (int l = 0; l < d_.lanes.size(); ++l) {
        const Lane& lane = d_.lanes[l];
        const int y = kTop + l * (kRow + kGap);
        p.setPen(palette().text().color());
        p.setFont(font());
        p.drawText(QRect(4, y, kLabel - 8, kRow), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap, lane.name);
        p.setFont(small);
        int last_iter = -2;
        for (int i = 0; i < lane.slices.size(); ++i) {
            const LaneSlice& s = lane.slices[i];
            QRect r = slice_rect(l, i);
            p.fillRect(r, lane_kind_color(s.kind));
            if (s.waits) p.setPen(QPen(QColor(0x7f, 0x1d, 0x1d), 2)), p.drawRect(r.adjusted(1, 1, -1, -1));
            // An iteration starts: a thin line and its number above the lane.
            if (!d_.measured() && s.iteration != last_iter && s.iteration >= 0) {
                p.setPen(QPen(palette().text().color(), 1, Qt::DashLine));
                p.drawLine(r.left(), y - kGap + 1, r.left(), y + kRow);
                p.drawText(r.left() + 2, y - 1, QString("k%1").arg(s.iteration));
            }
            last_iter = s.iteration;
            p.setPen(palette().text().color());
            if (r.width() > 30) {
                p.setPen(Qt::black);
                p.drawText(r.adjusted(2, 0, -2, 0), Qt::AlignLeft | Qt::AlignVCenter | Qt::TextWordWrap,
                           p.fontMetrics().elidedText(s.label, Qt::ElideRight, r.width() * 2 - 8));
            }
        }
    }
    p.setFont(font());
    paint_legend(p);
}

// A measured timeline's time axis: a tick every 1, 2 or 5 x 10^k us, at least 70 px apart, each
// labelled and drawn faintly down through the lanes, so slices can be read in microseconds.
void LaneView::paint_time_axis(QPainter& p) {
    const double k = scale(), min_step = 70.0 / k;
    double step = std::pow(10.0, std::floor(std::log10(min_step)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * step >= min_step) {
            step *= m;
            break;
        }
    const int bottom = kTop + int(d_.lanes.size()) * (kRow + kGap);
    const int axis_text = p.fontMetrics().horizontalAdvance(tr("time (us) ->")) + 12;
    QColor grid = palette().text().color();
    grid.setAlpha(60);
    const int decimals = step < 1 ? int(std::ceil(-std::log10(step))) : 0;
    for (double t = step; t <= d_.end; t += step) {
        const int x = kLabel + int(t * k);
        p.setPen(QPen(grid, 1, Qt::DotLine));
        p.drawLine(x, kTop - 4, x, bottom);
        if (x - kLabel < axis_text) continue;  // leave the axis name readable
        p.setPen(palette().text().color());
        p.drawText(QRect(x - 40, 2, 80, kTop - 4), Qt::AlignCenter, QString::number(t, 'f', decimals));
    }
}

// The colours of the kinds drawn, in the order they first appear, under the lanes.
void LaneView::paint_legend(QPainter& p) {
    QStringList kinds;
    for (const auto& l : d_.lanes)
        for (const auto& s : l.slices)
            if (!kinds.contains(s.kind)) kinds << s.kind;
    int x = kLabel;
    const int y = kTop + int(d_.lanes.size()) * (kRow + kGap) + 4;
    p.setPen(palette().text().color());
    for (const auto& k : kinds) {
        p.fillRect(QRect(x, y + 3, 12, 12), lane_kind_color(k));
        const int w = p.fontMetrics().horizontalAdvance(k);
        p.drawText(x + 16, y + 14, k);
        x += w + 30;
    }
    p.drawText(QRect(4, y, kLabel - 8, 18), Qt::AlignLeft | Qt::AlignVCenter, tr("outlined: waits"));
}

bool LaneView::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* h = static_cast<QHelpEvent*>(e);
        if (const LaneSlice* s = slice_at(h->pos()))
            QToolTip::showText(h->globalPos(), s->tooltip, this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(e);
}

void LaneView::mousePressEvent(QMouseEvent* e) {
    if (const LaneSlice* s = slice_at(e->position().toPoint()); s && s->line > 0) Q_EMIT go_to(s->line, s->col);
    QWidget::mousePressEvent(e);
}

}  // namespace tpui
