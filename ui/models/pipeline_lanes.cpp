// Lane diagrams of the pipeline view and of a measured timeline (see pipeline_lanes.h).
#include "models/pipeline_lanes.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>

namespace tpui {

namespace {

// Steps an event takes in the program-order diagram: waits and work stand out from issues.
double width_of(const tp::PipeEvent& e) {
    using K = tp::PipeEventKind;
    switch (e.kind) {
        case K::Compute:
        case K::Mma:
        case K::Store:
            return 2.0;
        case K::Scalar:
            return 0.5;
        default:
            return e.waits ? 1.5 : 1.0;
    }
}

QString tooltip_of(const tp::PipeEvent& e, const QString& file, const QString& phase) {
    QString t = QString("<b>%1</b><br>%2:%3 (%4)").arg(QString::fromStdString(e.label).toHtmlEscaped(), file).arg(e.span.begin.line).arg(phase);
    if (!e.slot.empty()) t += "<br>slot: <code>" + QString::fromStdString(e.slot).toHtmlEscaped() + "</code>";
    if (!e.guard.empty()) t += "<br>when: <code>" + QString::fromStdString(e.guard).toHtmlEscaped() + "</code>";
    if (e.waits) t += "<br>the role can wait here";
    if (e.async) t += "<br>asynchronous: completes later";
    t += "<br><code>" + QString::fromStdString(e.code).toHtmlEscaped() + "</code>";
    return t;
}

void append(Lane& lane, double& x, const std::vector<tp::PipeEvent>& es, const QString& file, const QString& phase, int iteration, bool scalars) {
    for (const auto& e : es) {
        if (!scalars && e.kind == tp::PipeEventKind::Scalar) continue;
        LaneSlice s;
        s.start = x, s.duration = width_of(e);
        s.label = QString::fromStdString(e.label);
        s.kind = tp::pipe_event_kind_name(e.kind);
        s.line = int(e.span.begin.line), s.col = int(e.span.begin.col);
        s.waits = e.waits, s.iteration = iteration;
        s.tooltip = tooltip_of(e, file, phase);
        lane.slices.push_back(s);
        x += s.duration;
    }
}

}  // namespace

LaneDiagram lanes_from_view(const tp::PipelineLoopView& v, const QString& file, int iterations, bool scalars) {
    LaneDiagram d;
    d.unit = "step";
    const QString name = QFileInfo(file).fileName();
    d.title = QString("loop %1 at line %2: %3").arg(QString::fromStdString(v.var)).arg(v.span.begin.line).arg(QString::fromStdString(v.scheme));
    for (const auto& r : v.roles) {
        Lane lane;
        lane.name = QString::fromStdString(r.name);
        lane.who = QString::fromStdString(r.who);
        double x = 0;
        append(lane, x, r.prologue, name, "before the loop", -1, scalars);
        for (int i = 0; i < iterations && !r.steady.empty(); ++i)
            append(lane, x, r.steady, name, QString("iteration %1 of %2").arg(i).arg(QString::fromStdString(r.loop)), i, scalars);
        append(lane, x, r.epilogue, name, "after the loop", -1, scalars);
        d.end = std::max(d.end, x);
        d.lanes.push_back(lane);
    }
    return d;
}

std::optional<LaneDiagram> lanes_from_trace(const QByteArray& json, QString* error) {
    QJsonParseError pe;
    QJsonDocument doc = QJsonDocument::fromJson(json, &pe);
    if (doc.isNull()) {
        if (error) *error = QString("not JSON: %1 at offset %2").arg(pe.errorString()).arg(pe.offset);
        return std::nullopt;
    }
    QJsonArray events = doc.isArray() ? doc.array() : doc.object().value("traceEvents").toArray();
    if (events.isEmpty()) {
        if (error) *error = "no traceEvents in the file";
        return std::nullopt;
    }
    QMap<int, QString> process;
    QMap<QPair<int, int>, QString> thread;
    QMap<QPair<int, int>, Lane> lanes;
    double t0 = -1, t1 = 0;
    for (const auto& ev : events) {
        QJsonObject o = ev.toObject();
        const QString ph = o.value("ph").toString();
        const int pid = o.value("pid").toInt(), tid = o.value("tid").toInt();
        if (ph == "M" && o.value("name") == "process_name") process[pid] = o.value("args").toObject().value("name").toString();
        if (ph == "M" && o.value("name") == "thread_name") thread[{pid, tid}] = o.value("args").toObject().value("name").toString();
        if (ph != "X") continue;
        LaneSlice s;
        s.start = o.value("ts").toDouble();
        s.duration = o.value("dur").toDouble();
        s.label = o.value("name").toString();
        const QJsonObject args = o.value("args").toObject();
        s.kind = args.value("kind").toString(o.value("cat").toString());
        s.line = args.value("line").toInt();
        s.iteration = args.value("iteration").toInt(-1);
        s.waits = args.value("waits").toBool();
        s.tooltip = QString("<b>%1</b><br>%2 us for %3 us<br>line %4")
                        .arg(s.label.toHtmlEscaped())
                        .arg(s.start, 0, 'f', 3)
                        .arg(s.duration, 0, 'f', 3)
                        .arg(s.line);
        if (s.iteration >= 0) s.tooltip += QString("<br>iteration %1").arg(s.iteration);
        lanes[{pid, tid}].slices.push_back(s);
        t0 = t0 < 0 ? s.start : std::min(t0, s.start);
        t1 = std::max(t1, s.start + s.duration);
    }
    if (lanes.isEmpty()) {
        if (error) *error = "the trace has no complete (\"X\") events";
        return std::nullopt;
    }
    LaneDiagram d;
    d.unit = "us";
    d.title = "measured timeline";
    for (auto it = lanes.begin(); it != lanes.end(); ++it) {
        Lane l = it.value();
        const auto [pid, tid] = it.key();
        l.name = process.value(pid, QString("SM %1").arg(pid)) + " " + thread.value({pid, tid}, QString("thread %1").arg(tid));
        for (auto& s : l.slices) s.start -= t0;  // the first stamp is time 0
        d.lanes.push_back(l);
    }
    d.end = t1 - t0;
    return d;
}

QColor lane_kind_color(const QString& kind) {
    static const QMap<QString, QColor> colors = {
        {"tma_load", QColor(0x3b, 0x82, 0xf6)},
        {"cp_async", QColor(0x3b, 0x82, 0xf6)},
        {"commit", QColor(0x93, 0xc5, 0xfd)},
        {"wait_group", QColor(0xef, 0x44, 0x44)},
        {"acquire", QColor(0xf9, 0x73, 0x16)},
        {"mbarrier_wait", QColor(0xef, 0x44, 0x44)},
        {"mbarrier_arrive", QColor(0xfd, 0xba, 0x74)},
        {"release", QColor(0x22, 0xc5, 0x5e)},
        {"wgmma_issue", QColor(0xa8, 0x55, 0xf7)},
        {"wgmma_wait", QColor(0xdc, 0x26, 0x26)},
        {"mma", QColor(0xa8, 0x55, 0xf7)},
        {"syncthreads", QColor(0xb9, 0x1c, 0x1c)},
        {"named_barrier_sync", QColor(0xb9, 0x1c, 0x1c)},
        {"named_barrier_arrive", QColor(0xfc, 0xa5, 0xa5)},
        {"store", QColor(0x0e, 0xa5, 0xe9)},
        {"compute", QColor(0x9c, 0xa3, 0xaf)},
        {"scalar", QColor(0xd1, 0xd5, 0xdb)},
    };
    return colors.value(kind, QColor(0x9c, 0xa3, 0xaf));
}

}  // namespace tpui
