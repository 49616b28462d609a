// SweepModel: rows are appended with beginInsertRows so views and charts update live.
#include "models/sweep_model.h"

#include <algorithm>
#include <map>

#include "models/results_model.h"

namespace tpui {

void SweepModel::clear() {
    beginResetModel();
    rows_.clear();
    peers_.reset();
    endResetModel();
}

void SweepModel::set_peers(const RunResult& r) {
    peers_ = r;
    Q_EMIT peersChanged();
}

QString SweepModel::best_peer_summary() const {
    if (!peers_) return {};
    if (!peers_->ok) return tr("peers not timed: %1").arg(peers_->error);
    const BaselineTime* b = peers_->best_peer();
    if (!b) return tr("%1: no peer ran").arg(peers_->config);
    QString s = tr("%1: %2 vs best peer %3").arg(peers_->config, ResultsModel::ratio_text(*b), b->name);
    if (peers_->semantics == 0) s += tr("; its result DIFFERS from the peers'");
    return s;
}

void SweepModel::add(const RunResult& r) {
    beginInsertRows({}, int(rows_.size()), int(rows_.size()));
    rows_.push_back(r);
    endInsertRows();
}

std::vector<RunResult> SweepModel::sorted_by_latency() const {
    std::vector<RunResult> out;
    for (const auto& r : rows_)
        if (r.ok && r.has_timing()) out.push_back(r);
    std::stable_sort(out.begin(), out.end(), [](const RunResult& a, const RunResult& b) { return a.median_ms < b.median_ms; });
    return out;
}

std::vector<BaselineTime> SweepModel::baselines() const {
    if (peers_ && peers_->ok) return peers_->baselines;
    std::map<QString, BaselineTime> best;
    std::vector<QString> order;
    for (const auto& r : rows_)
        for (const auto& b : r.baselines) {
            auto it = best.find(b.name);
            if (it == best.end()) {
                best[b.name] = b;
                order.push_back(b.name);
            } else if (b.median_ms > 0 && (it->second.median_ms < 0 || b.median_ms < it->second.median_ms)) {
                it->second = b;
            }
        }
    std::vector<BaselineTime> out;
    for (const auto& n : order) out.push_back(best[n]);
    return out;
}

QString SweepModel::to_csv() const {
    auto cell = [](double v) { return v < 0 ? QString() : QString::number(v, 'g', 8); };
    auto quote = [](QString s) {
        if (s.contains(',') || s.contains('"')) s = '"' + s.replace("\"", "\"\"") + '"';
        return s;
    };
    QString out = "config,device,ok,median_ms,min_ms,tflops,gbps,rel_error,error\n";
    for (const auto& r : rows_)
        out += QStringList{quote(r.config), r.cpu ? "cpu" : "gpu", r.ok ? "1" : "0", cell(r.median_ms), cell(r.min_ms),
                           cell(r.tflops), cell(r.gbps), cell(r.rel_error), quote(r.error)}
                   .join(',') +
               "\n";
    for (const auto& b : baselines())
        out += QStringList{quote("baseline:" + b.name), "gpu", b.median_ms > 0 ? "1" : "0", cell(b.median_ms), "", "", "",
                           "", quote(b.note)}
                   .join(',') +
               "\n";
    return out;
}

int SweepModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int SweepModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant SweepModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= int(rows_.size())) return {};
    const RunResult& r = rows_[size_t(index.row())];
    if (role == Qt::UserRole) return r.median_ms;  // sort key
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
        case Config: return r.config;
        case Latency:
            // The interpreter's time says nothing of the GPU's: named as such.
            if (r.cpu && role == Qt::ToolTipRole) return tr("the CPU interpreter's time, which says nothing of the GPU's: timings need a GPU");
            if (r.cpu) return r.wall_ms > 0 ? tr("CPU %1").arg(ResultsModel::format_ms(r.wall_ms)) : tr("CPU");
            return ResultsModel::format_ms(r.median_ms);
        case Tflops: return ResultsModel::format_number(r.tflops, 2);
        case Gbps: return ResultsModel::format_number(r.gbps, 0);
        case Error: return r.rel_error < 0 ? QStringLiteral("—") : QString::number(r.rel_error, 'e', 2);
        case Status: return !r.ok ? (r.error.isEmpty() ? tr("failed") : r.error) : r.correct ? tr("ok") : tr("wrong result");
    }
    return {};
}

QVariant SweepModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Config", "Latency", "TFLOP/s", "GB/s", "Rel. error", "Status"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace tpui
