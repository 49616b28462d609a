// LayoutGridModel (see layout_grid_model.h).
#include "models/layout_grid_model.h"

#include <QStringList>
#include <algorithm>
#include <map>

namespace tpui {

LayoutGridModel::LayoutGridModel(QObject* parent) : QAbstractTableModel(parent) {}

void LayoutGridModel::set_report(std::shared_ptr<const tp::LayoutReport> r) {
    beginResetModel();
    report_ = std::move(r);
    endResetModel();
}

void LayoutGridModel::set_show_text(bool on) {
    if (on == show_text_) return;
    show_text_ = on;
    if (rowCount() > 0 && columnCount() > 0) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1), {Qt::DisplayRole});
}

int LayoutGridModel::rowCount(const QModelIndex& parent) const { return parent.isValid() || !report_ ? 0 : int(report_->layout.rows); }
int LayoutGridModel::columnCount(const QModelIndex& parent) const { return parent.isValid() || !report_ ? 0 : int(report_->layout.cols); }

int LayoutGridModel::color_key(int row, int col) const {
    const tp::BufferLayout& l = report_->layout;
    const size_t e = size_t(int64_t(row) * l.cols + col);
    if (l.scope == "fragment") return e < l.owners.size() && !l.owners[e].empty() ? l.owners[e][0].thread : -1;
    return e < l.byte_offset.size() ? l.bank(int64_t(e)) : -1;
}

QString LayoutGridModel::cell_text(int row, int col) const {
    const tp::BufferLayout& l = report_->layout;
    const size_t e = size_t(int64_t(row) * l.cols + col);
    if (l.scope != "fragment") return e < l.byte_offset.size() ? QString::number(l.bank(int64_t(e))) : QString();
    if (e >= l.owners.size() || l.owners[e].empty()) return QStringLiteral("-");
    const tp::LayoutOwner& o = l.owners[e][0];
    QString s = o.thread < 0 ? QStringLiteral("all") : QStringLiteral("T%1").arg(o.thread);
    s += QStringLiteral(":r%1").arg(o.reg);
    if (l.owners[e].size() > 1) s += QStringLiteral("+");
    return s;
}

QString LayoutGridModel::tooltip(int row, int col) const {
    const tp::BufferLayout& l = report_->layout;
    const int64_t e = int64_t(row) * l.cols + col;
    QStringList lines;
    lines << QStringLiteral("%1[%2, %3]").arg(QString::fromStdString(l.name)).arg(row).arg(col);
    if (l.scope == "fragment") {
        for (const auto& o : l.owners[size_t(e)]) {
            if (o.thread < 0) {
                lines << QStringLiteral("every thread, register %1").arg(o.reg);
                continue;
            }
            QString where = QStringLiteral("thread %1 (warp %2, lane %3").arg(o.thread).arg(o.thread / 32).arg(o.thread % 32);
            if (l.wgmma) where += QStringLiteral(", warpgroup %1").arg(o.thread / 128);
            lines << where + QStringLiteral("), register %1").arg(o.reg);
        }
    } else {
        const int64_t byte = l.byte_offset[size_t(e)];
        lines << QStringLiteral("byte %1 of the stage, bank %2").arg(byte).arg(l.bank(e));
        const tp::LayoutSwizzle& s = l.swizzle;
        if (s.swizzled) {
            const int64_t chunk = (col % s.pitch) / s.vec, key = (row / s.rows_per_key) & s.mask;
            lines << QStringLiteral("16-byte chunk %1 stored at chunk %2 (XOR %3)").arg(chunk).arg(chunk ^ key).arg(key);
        }
    }
    const QString file = report_->file ? QString::fromStdString(report_->file->path()).section('/', -1) : QString();
    for (const auto& a : l.accesses) {
        if (size_t(e) >= a.touched.size() || !a.touched[size_t(e)]) continue;
        QString who;
        const tp::LayoutOwner& t = a.touch[size_t(e)];
        if (t.thread >= 0)
            who = QStringLiteral(" by thread %1").arg(t.thread) + (t.reg >= 0 ? QStringLiteral(" (element %1)").arg(t.reg) : QString());
        lines << QStringLiteral("%1 %2:%3: %4%5")
                     .arg(a.write ? QStringLiteral("writes") : QStringLiteral("reads"), file)
                     .arg(a.span.begin.line)
                     .arg(QString::fromStdString(a.what), who);
    }
    return lines.join('\n');
}

QVariant LayoutGridModel::data(const QModelIndex& index, int role) const {
    if (!report_ || !index.isValid()) return {};
    switch (role) {
        case Qt::DisplayRole:
            return show_text_ ? QVariant(cell_text(index.row(), index.column())) : QVariant();
        case Qt::ToolTipRole:
            return tooltip(index.row(), index.column());
        case Qt::BackgroundRole: {
            const bool frag = report_->layout.scope == "fragment";
            const int keys = frag ? std::max(1, report_->layout.threads) : 32;
            return key_color(color_key(index.row(), index.column()), keys);
        }
        case Qt::ForegroundRole:
            return QColor(Qt::black);
        case Qt::TextAlignmentRole:
            return int(Qt::AlignCenter);
        default:
            return {};
    }
}

QVariant LayoutGridModel::headerData(int section, Qt::Orientation, int role) const {
    return role == Qt::DisplayRole ? QVariant(section) : QVariant();
}

// Threads of one warp get neighbouring hues across the whole circle (lanes 0..31 are what a
// reader compares), warps a shifted lightness; banks one hue each.
QColor LayoutGridModel::key_color(int key, int keys) {
    if (key < 0) return QColor(Qt::lightGray);
    if (keys <= 32) return QColor::fromHsv((key * 360 / std::max(1, keys)) % 360, 110, 245);
    const int lane = key % 32, warp = key / 32;
    return QColor::fromHsv((lane * 360 / 32 + warp * 7) % 360, 90 + (warp % 4) * 35, 250 - (warp % 3) * 25);
}

std::vector<LayoutMarginNote> LayoutGridModel::margin_notes(const tp::LayoutReport& r) {
    std::map<int, LayoutMarginNote> by_line;
    for (const auto& a : r.layout.accesses) {
        if (a.degree <= 0 || a.span.begin.line == 0) continue;
        LayoutMarginNote& n = by_line[int(a.span.begin.line)];
        n.line = int(a.span.begin.line);
        n.degree = std::max(n.degree, a.degree);
        if (!n.tooltip.isEmpty()) n.tooltip += '\n';
        n.tooltip += QStringLiteral("%1 %2: %3-way bank conflict, %4 wavefronts for %5 ideal")
                         .arg(QString::fromStdString(r.layout.name), QString::fromStdString(a.what))
                         .arg(a.degree)
                         .arg(a.wavefronts)
                         .arg(a.ideal_wavefronts);
    }
    std::vector<LayoutMarginNote> out;
    for (auto& [line, n] : by_line) {
        n.text = n.degree > 1 ? QStringLiteral("%1x").arg(n.degree) : QStringLiteral("ok");
        out.push_back(n);
    }
    return out;
}

}  // namespace tpui
