// Results of a Sweep or Tune, one row per schedule configuration, appended live as the worker
// reports them, and the best configuration timed again beside its peers. The charts read the
// rows sorted by latency, the peers' times and the best config's ratio to the best peer.
#pragma once

#include <QAbstractTableModel>
#include <optional>
#include <vector>

#include "models/run_result.h"

namespace tpui {

class SweepModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Config, Latency, Tflops, Gbps, Error, Status, ColumnCount };

    using QAbstractTableModel::QAbstractTableModel;
    void clear();
    void add(const RunResult& r);
    const std::vector<RunResult>& rows() const { return rows_; }
    // Timed rows, fastest first (failed or untimed rows are left out).
    std::vector<RunResult> sorted_by_latency() const;
    // The peers' times: from the best config's peer run when there is one, else the best
    // (lowest) time each baseline reported across the rows, by name.
    std::vector<BaselineTime> baselines() const;
    // The best configuration timed beside its peers (RunService::peers); emits peersChanged.
    void set_peers(const RunResult& r);
    const std::optional<RunResult>& peers() const { return peers_; }
    // "block_M=128 ...: 1.02x [0.99-1.05] vs best peer cublas.gemm", or empty.
    QString best_peer_summary() const;

Q_SIGNALS:
    void peersChanged();

public:
    // CSV with a header line; numbers in plain notation, unknown as empty cells.
    QString to_csv() const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

private:
    std::vector<RunResult> rows_;
    std::optional<RunResult> peers_;
};

}  // namespace tpui
