// ResultsModel: row 0 is our kernel; rows 1.. are baselines, timed on the same inputs.
#include "models/results_model.h"

#include <QColor>

namespace tpui {

QString ResultsModel::format_ms(double ms) {
    if (ms < 0) return QStringLiteral("—");
    if (ms < 0.1) return QStringLiteral("%1 µs").arg(ms * 1000, 0, 'f', 1);
    return QStringLiteral("%1 ms").arg(ms, 0, 'f', ms < 10 ? 3 : 1);
}

QString ResultsModel::ratio_text(const BaselineTime& b) {
    if (b.ratio <= 0) return {};
    if (b.ratio_min <= 0) return QStringLiteral("%1x").arg(b.ratio, 0, 'f', 2);
    return QStringLiteral("%1x [%2-%3]").arg(b.ratio, 0, 'f', 2).arg(b.ratio_min, 0, 'f', 2).arg(b.ratio_max, 0, 'f', 2);
}

// Our row: the ratio to the best peer (per round, alternating), the semantic check, the clocks.
QString ResultsModel::our_note(const RunResult& r) {
    QStringList parts;
    if (const BaselineTime* b = r.best_peer()) parts << tr("%1 vs best peer %2").arg(ratio_text(*b), b->name);
    if (r.semantics == 1) parts << tr("agrees with %1").arg(r.semantics_note);
    else if (r.semantics == 0) parts << tr("DIFFERS from %1: the kernel computes something else").arg(r.semantics_note);
    else if (!r.baselines.empty()) parts << tr("semantics unchecked%1").arg(r.semantics_note.isEmpty() ? QString() : ": " + r.semantics_note);
    parts << tr("min %1, spread %2%").arg(format_ms(r.min_ms)).arg(r.spread_pct, 0, 'f', 1);
    if (!r.conditions.isEmpty()) parts << r.conditions;
    return parts.join("; ");
}

QString ResultsModel::peer_note(const RunResult& r, const BaselineTime& b) {
    if (b.median_ms <= 0) return b.note;
    QStringList parts;
    QString ratio = ratio_text(b);
    if (ratio.isEmpty() && r.median_ms > 0) ratio = QStringLiteral("%1x").arg(b.median_ms / r.median_ms, 0, 'f', 2);
    if (!ratio.isEmpty()) parts << tr("ours is %1 its speed").arg(ratio);
    if (b.best) parts << tr("best peer");
    if (b.agrees == 0) parts << tr("its result DIFFERS from ours");
    else if (b.agrees == 1) parts << tr("its result agrees with ours");
    if (!b.note.isEmpty()) parts << b.note;
    return parts.join("; ");
}

QString ResultsModel::format_number(double v, int decimals) {
    return v < 0 ? QStringLiteral("—") : QString::number(v, 'f', decimals);
}

void ResultsModel::set_result(const RunResult& r) {
    beginResetModel();
    result_ = r;
    endResetModel();
}

void ResultsModel::clear() {
    beginResetModel();
    result_.reset();
    endResetModel();
}

int ResultsModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !result_) return 0;
    return 1 + (result_->cpu ? 0 : int(result_->baselines.size()));
}

int ResultsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ResultsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !result_ || index.row() >= rowCount()) return {};
    const RunResult& r = *result_;
    if (index.row() == 0) {
        if (role == Qt::ForegroundRole && index.column() == Error && r.rel_error >= 0)
            return QColor(r.correct ? QColor("#3fb950") : QColor("#f0524f"));
        if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
        switch (index.column()) {
            // Where the numbers come from is part of the name: the interpreter or which GPU.
            case Name:
                if (r.cpu) {
                    if (r.engine == "jit") return tr("%1 (CPU, LLVM JIT)").arg(r.config);
                    if (r.engine == "jit+interpreter") return tr("%1 (CPU, JIT and interpreter)").arg(r.config);
                    return tr("%1 (CPU interpreter)").arg(r.config);
                }
                return r.device.isEmpty() ? tr("%1 (GPU)").arg(r.config) : tr("%1 (GPU: %2)").arg(r.config, r.device);
            case Latency: return r.cpu ? tr("n/a on CPU") : format_ms(r.median_ms);
            case Tflops: return r.cpu ? QString() : format_number(r.tflops, 2);
            case Gbps: return r.cpu ? QString() : format_number(r.gbps, 0);
            case Error:
                if (r.rel_error < 0) return QStringLiteral("—");
                return QStringLiteral("%1 %2").arg(r.rel_error, 0, 'e', 2).arg(r.correct ? "✓" : "✗");
            case Note:
                if (!r.error.isEmpty()) return r.error;
                if (r.cpu) return tr("CPU run, no GPU timings%1").arg(r.note.isEmpty() ? QString() : "; " + r.note);
                if (!r.note.isEmpty()) return r.note;
                if (r.median_ms < 0 && r.wall_ms >= 0)
                    return tr("one launch took %1 (wall clock, not benchmarked); Benchmark times it").arg(format_ms(r.wall_ms));
                if (r.min_ms > 0) return our_note(r);
                return {};
        }
        return {};
    }
    const BaselineTime& b = r.baselines[size_t(index.row() - 1)];
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
        case Name: return tr("%1 (GPU)").arg(b.name);  // baselines run on the same GPU
        case Latency: return format_ms(b.median_ms);
        case Tflops: return b.median_ms > 0 && r.flops > 0 ? format_number(r.flops / (b.median_ms * 1e-3) / 1e12, 2) : QStringLiteral("—");
        case Gbps: return b.median_ms > 0 && r.bytes > 0 ? format_number(r.bytes / (b.median_ms * 1e-3) / 1e9, 0) : QStringLiteral("—");
        case Error:
            if (b.agrees < 0) return QString();
            return QStringLiteral("%1 %2").arg(b.vs_rel_fro, 0, 'e', 2).arg(b.agrees ? "✓" : "✗");
        case Note: return peer_note(r, b);
    }
    return {};
}

QVariant ResultsModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Kernel", "Latency", "TFLOP/s", "GB/s", "Rel. error", "Note"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tpui
