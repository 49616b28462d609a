// JSON <-> RunResult. Field names follow docs/worker-protocol.md; a few aliases are accepted
// so older workers' results still load.
#include "models/run_result.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>

namespace tpui {

namespace {

double num(const QJsonObject& o, std::initializer_list<const char*> keys, double def = -1) {
    for (const char* k : keys)
        if (o.contains(QLatin1String(k)) && o.value(QLatin1String(k)).isDouble()) return o.value(QLatin1String(k)).toDouble();
    return def;
}

// The semantic check and the GPU's clocks of a bench reply. A disagreeing peer makes the
// result wrong even when the interpreter agreed: the DSL itself computes the wrong thing.
void read_semantics(const QJsonObject& o, RunResult& r) {
    const QJsonObject s = o.value("semantics").toObject();
    if (s.value("checked").toBool()) {
        r.semantics = s.value("ok").toBool() ? 1 : 0;
        QStringList against;
        for (const auto& a : s.value("against").toArray()) against << a.toString();
        r.semantics_note = against.join(", ");
        if (r.semantics == 0) r.correct = false;
    } else if (s.contains("why")) {
        r.semantics_note = s.value("why").toString();
    }
    if (o.value("semantics").isDouble()) r.semantics = o.value("semantics").toInt();  // our own JSON
    if (o.contains("semantics_note")) r.semantics_note = o.value("semantics_note").toString();
    const QJsonObject c = o.value("conditions").toObject();
    if (c.value("available").toBool()) {
        const QJsonObject sm = c.value("sm_clock_mhz").toObject();
        r.conditions = QStringLiteral("SM %1-%2 MHz, %3 W")
                           .arg(sm.value("min").toDouble(), 0, 'f', 0)
                           .arg(sm.value("max").toDouble(), 0, 'f', 0)
                           .arg(c.value("power_w").toObject().value("mean").toDouble(), 0, 'f', 0);
    }
    if (o.value("conditions").isString()) r.conditions = o.value("conditions").toString();
}

// The race checker's findings of a CPU run (`races: {scope, findings: [...]}`).
void read_races(const QJsonObject& o, RunResult& r) {
    if (!o.value("races").isObject()) return;
    const QJsonObject races = o.value("races").toObject();
    r.races_checked = true;
    r.races_scope = races.value("scope").toString();
    for (const auto& v : races.value("findings").toArray()) {
        const QJsonObject f = v.toObject();
        RaceFinding rf;
        rf.kind = f.value("kind").toString();
        rf.message = f.value("message").toString();
        rf.line = f.value("line").toInt();
        rf.col = f.value("col").toInt();
        rf.other_message = f.value("other_message").toString();
        rf.other_line = f.value("other_line").toInt();
        rf.other_col = f.value("other_col").toInt();
        r.races.push_back(rf);
    }
}

}  // namespace

QString cap_printed(const QString& text, qsizetype dropped_bytes) {
    QByteArray utf8 = text.toUtf8();
    if (utf8.size() <= kPrintedLimit && dropped_bytes == 0) return text;
    if (utf8.size() > kPrintedLimit) {
        // Cut at the last line end inside the limit so no line is shown half.
        qsizetype cut = utf8.lastIndexOf('\n', kPrintedLimit - 1) + 1;
        if (cut <= 0) cut = kPrintedLimit;
        dropped_bytes += utf8.size() - cut;
        utf8.truncate(cut);
    }
    QString out = QString::fromUtf8(utf8);
    if (!out.isEmpty() && !out.endsWith('\n')) out += '\n';
    return out + QStringLiteral("[%1 more bytes of printed output not shown]\n").arg(dropped_bytes);
}

RunResult run_result_from_json(const QJsonObject& o) {
    RunResult r;
    r.config = o.value("config").toString(o.value("kernel").toString());
    QJsonObject params = o.value("params").toObject();
    for (auto it = params.begin(); it != params.end(); ++it)
        r.params.emplace_back(it.key(), it.value().isString() ? it.value().toString() : it.value().toVariant().toString());
    if (r.config.isEmpty()) {
        QStringList parts;
        for (const auto& [k, v] : r.params) parts << k + "=" + v;
        r.config = parts.join(' ');
    }
    // "device" is "cpu", the GPU's name (a bench reply) or hello's {"name": ...}.
    QJsonValue dev = o.value("device");
    QString dev_name = dev.isObject() ? dev.toObject().value("name").toString() : dev.toString();
    r.cpu = dev_name == "cpu" || o.value("cpu").toBool();
    if (!r.cpu && dev_name != "gpu") r.device = dev_name;
    r.ok = o.value("ok").toBool(true);
    r.error = o.value("error").toString();
    r.note = o.value("note").toString();
    r.engine = o.value("engine").toString();
    r.printed = cap_printed(o.value("printed").toString());
    // A stamped run's Chrome trace (pass config tp.timeline=true), or why it has none.
    const QJsonObject timeline = o.value("timeline").toObject();
    if (timeline.value("trace").isObject()) r.timeline = QJsonDocument(timeline.value("trace").toObject()).toJson(QJsonDocument::Compact);
    r.timeline_note = timeline.contains("error") ? timeline.value("error").toString() : o.value("timeline_note").toString();
    // The worker's bench reply keeps our kernel's statistics under "ours".
    QJsonObject timing = o.contains("ours") ? o.value("ours").toObject() : o.value("timing").toObject();
    const QJsonObject& t = timing.isEmpty() ? o : timing;
    r.min_ms = num(t, {"min_ms"});
    r.median_ms = num(t, {"median_ms", "ms"});
    r.wall_ms = num(o, {"wall_ms"});
    // A CPU run's time is the interpreter's (not a GPU timing: has_timing() stays false).
    if (r.cpu && r.wall_ms < 0) r.wall_ms = num(o.value("interp").toObject(), {"ms"});
    r.spread_pct = num(t, {"spread_pct", "spread"});
    r.tflops = num(t, {"tflops"}, num(o, {"tflops"}));
    r.gbps = num(t, {"gbps", "gb_s"}, num(o, {"gbps", "gb_s"}));
    r.flops = num(o, {"flops"});
    r.bytes = num(o, {"bytes"});
    QJsonObject check = o.value("check").toObject();
    const QJsonObject& c = check.isEmpty() ? o : check;
    r.rel_error = num(c, {"rel_error", "rel_err", "rel_fro"});
    r.max_abs_error = num(c, {"max_abs_error", "max_abs"});
    // The worker's check lists each output: the row shows the worst one.
    for (const auto& out : c.value("outputs").toArray()) {
        r.rel_error = std::max(r.rel_error, num(out.toObject(), {"rel_fro"}));
        r.max_abs_error = std::max(r.max_abs_error, num(out.toObject(), {"max_abs"}));
        r.nonfinite += out.toObject().value("nonfinite").toInteger();
    }
    r.correct = c.value("passed").toBool(c.value("correct").toBool(c.value("ok").toBool(r.ok)));
    r.checked = check.contains("checked") ? check.value("checked").toBool() : !check.isEmpty();
    r.blocks_checked = c.value("blocks_checked").toInt(-1);
    r.total_blocks = c.value("total_blocks").toInt(-1);
    // The reference could not be computed (the interpreter failed): say so beside the row.
    if (QString why = check.value("error").toString(); !why.isEmpty() && r.note.isEmpty()) r.note = why;
    if (r.tflops < 0 && r.flops > 0 && r.median_ms > 0) r.tflops = r.flops / (r.median_ms * 1e-3) / 1e12;
    if (r.gbps < 0 && r.bytes > 0 && r.median_ms > 0) r.gbps = r.bytes / (r.median_ms * 1e-3) / 1e9;
    const QString best = o.value("best_peer").toObject().value("name").toString();
    for (const auto& b : o.value("baselines").toArray()) {
        QJsonObject bo = b.toObject();
        BaselineTime bt;
        bt.name = bo.value("name").toString();
        bt.median_ms = num(bo.value("stats").toObject(), {"median_ms"}, num(bo, {"median_ms", "ms"}));
        bt.note = bo.value("note").toString(bo.value("why").toString(bo.value("unavailable").toString()));
        if (bt.median_ms < 0 && bt.note.isEmpty()) bt.note = QStringLiteral("unavailable");
        bt.ratio = num(bo, {"ratio"});
        bt.ratio_min = num(bo, {"ratio_min"});
        bt.ratio_max = num(bo, {"ratio_max"});
        const QJsonObject vs = bo.value("vs_ours").toObject();
        if (vs.contains("agree")) bt.agrees = vs.value("agree").toBool() ? 1 : 0;
        bt.vs_rel_fro = num(vs, {"rel_fro"});
        bt.best = bo.value("best").toBool(!best.isEmpty() && bt.name == best);
        r.baselines.push_back(bt);
    }
    read_semantics(o, r);
    read_races(o, r);
    return r;
}

QJsonObject run_result_to_json(const RunResult& r) {
    QJsonObject o;
    o["config"] = r.config;
    QJsonObject params;
    for (const auto& [k, v] : r.params) params[k] = v;
    o["params"] = params;
    o["device"] = r.cpu ? QStringLiteral("cpu") : r.device.isEmpty() ? QStringLiteral("gpu") : r.device;
    o["ok"] = r.ok;
    if (!r.error.isEmpty()) o["error"] = r.error;
    if (!r.engine.isEmpty()) o["engine"] = r.engine;
    o["timing"] = QJsonObject{{"min_ms", r.min_ms}, {"median_ms", r.median_ms}, {"spread_pct", r.spread_pct}};
    if (r.wall_ms >= 0) o["wall_ms"] = r.wall_ms;
    o["tflops"] = r.tflops;
    o["gbps"] = r.gbps;
    o["flops"] = r.flops;
    o["bytes"] = r.bytes;
    QJsonObject check{{"rel_error", r.rel_error}, {"max_abs_error", r.max_abs_error}, {"passed", r.correct}, {"checked", r.checked}};
    // As the worker lists them per output: read back into the same total.
    if (r.nonfinite) check["outputs"] = QJsonArray{QJsonObject{{"nonfinite", r.nonfinite}}};
    o["check"] = check;
    if (r.races_checked) {
        QJsonArray fs;
        for (const auto& f : r.races)
            fs.append(QJsonObject{{"kind", f.kind},
                                  {"message", f.message},
                                  {"line", f.line},
                                  {"col", f.col},
                                  {"other_message", f.other_message},
                                  {"other_line", f.other_line},
                                  {"other_col", f.other_col}});
        o["races"] = QJsonObject{{"scope", r.races_scope}, {"findings", fs}};
    }
    QJsonArray bs;
    for (const auto& b : r.baselines) {
        QJsonObject bo{{"name", b.name}, {"median_ms", b.median_ms}, {"note", b.note}, {"ratio", b.ratio},
                       {"ratio_min", b.ratio_min}, {"ratio_max", b.ratio_max}, {"best", b.best}};
        if (b.agrees >= 0) bo["vs_ours"] = QJsonObject{{"agree", b.agrees == 1}, {"rel_fro", b.vs_rel_fro}};
        bs.append(bo);
    }
    o["baselines"] = bs;
    o["semantics"] = r.semantics;
    if (!r.semantics_note.isEmpty()) o["semantics_note"] = r.semantics_note;
    if (!r.conditions.isEmpty()) o["conditions"] = r.conditions;
    if (!r.printed.isEmpty()) o["printed"] = r.printed;
    return o;
}

}  // namespace tpui
