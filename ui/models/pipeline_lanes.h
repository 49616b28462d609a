// Lanes of slices for the Pipeline dock's diagram, widget-free: one lane per warp role, a slice
// per event. From the pipeline view (tileplay/pipeline_view.h) the x axis is program order
// (steps: the events before the loop, a few iterations of it, the events after it; an event that
// waits or computes is wider than a scalar issue); from a measured timeline (a Chrome trace that
// `tilec run --timeline` writes) it is time in microseconds, one lane per SM and role.
#pragma once

#include <QColor>
#include <QString>
#include <QVector>
#include <optional>

#include "tileplay/pipeline_view.h"

namespace tpui {

struct LaneSlice {
    double start = 0, duration = 1;
    QString label, kind, tooltip;
    int line = 0, col = 0;  // the DSL statement; 0 when unknown
    bool waits = false;
    int iteration = -1;  // which loop iteration (-1: before or after the loop)
};

struct Lane {
    QString name;  // "producer", "consumer", "SM 3 consumer"
    QString who;
    QVector<LaneSlice> slices;
};

struct LaneDiagram {
    QString title;
    QString unit;  // "step" (program order) or "us" (measured)
    double end = 0;
    QVector<Lane> lanes;
    bool measured() const { return unit == "us"; }
};

// One loop of the view: its roles' events with `iterations` copies of the steady state; scalar
// bookkeeping left out unless `scalars`.
LaneDiagram lanes_from_view(const tp::PipelineLoopView& v, const QString& file, int iterations = 2, bool scalars = false);

// A Chrome trace: "X" (complete) events grouped by pid (SM) and tid (role), named by the "M"
// metadata events; args.line / args.kind when present. nullopt with `error` set on bad input.
std::optional<LaneDiagram> lanes_from_trace(const QByteArray& json, QString* error);

// The colour of an event kind (tma_load, mbarrier_wait, ...), the same in both diagrams.
QColor lane_kind_color(const QString& kind);

}  // namespace tpui
